// 07_98_image_filter: beyond the book: a real picture through the chapter's fastest kernel.
//
// Reads a greyscale PGM (--in; binary P5 or text P2, 8 or 16 bits) or, without --in, generates a
// test pattern with edges, gradients, fine stripes and letters. It applies three classic filters
// with the chapter's fastest kernel, 07_94's strips (filter in constant memory, ghost cells 0):
//   Gaussian blur  5x5 binomial, [1 4 6 4 1]^T [1 4 6 4 1] / 256 (r = 2)
//   sharpen        3x3, 5 at the centre, -1 at the four neighbours (r = 1)
//   Sobel          3x3 horizontal and vertical gradients (r = 1), combined as sqrt(gx^2 + gy^2)
// checks every GPU output against the sequential convolution (exactly: pixels are integers and the
// weights multiples of 1/256, so every sum has at most 24 significant bits), and writes input.pgm,
// blur.pgm, sharpen.pgm and sobel.pgm to --out-dir (8 bits, clamped; the filtered ones name the
// kernel in a comment line; the folder is made if missing, and one that cannot be made or written
// is a usage error before any work). plot_benchmark.py --images puts them side by side. A bad file
// (missing, not a PGM, truncated, absurd size, a header promising more pixels than the file
// holds) is one line on stderr and exit 1, before any GPU is looked for or the image's memory
// allocated; a host allocation that fails anyway is a message and exit 1 too.
//
// With --host-reference it needs no GPU: the images come from the sequential convolution alone.
// They are the pixels the GPU writes (its check above is exact), so a machine without a GPU makes
// the same files, and the chapter's picture of them (image_filter.png) is redrawn anywhere.
//
// Build: cmake --build build --target 07_98_image_filter
// Run:   build/bin/07_98_image_filter [--in photo.pgm | --n 1024] [--out-dir .] [--reps 20] [--csv]
//        build/bin/07_98_image_filter --host-reference [--in photo.pgm | --n 1024] [--out-dir .]
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <new>
#include <sstream>
#include <tuple>

#define CH07_KERNELS_ONLY  // 07_94 brings its kernel and launcher, not its main
#include "07_94_conv2d_strip_fma.cu"
#include "conv.cuh"

struct Image {
    int width = 0, height = 0, maxval = 255;
    std::vector<float> pixels;  // integers 0..maxval, row-major
};

// Reads the next header token of a PGM, skipping whitespace and # comments.
static bool pgm_token(std::istream& in, std::string* token) {
    token->clear();
    int c;
    while ((c = in.get()) != EOF) {
        if (c == '#') {
            while ((c = in.get()) != EOF && c != '\n') {
            }
        } else if (!std::isspace(c)) {
            *token += char(c);
            break;
        }
    }
    while ((c = in.peek()) != EOF && !std::isspace(c) && c != '#') *token += char(in.get());
    return !token->empty();
}

static bool pgm_number(std::istream& in, long long max, long long* value) {
    std::string token;
    if (!pgm_token(in, &token) || token.find_first_not_of("0123456789") != std::string::npos ||
        token.size() > 9)
        return false;
    *value = std::stoll(token);
    return *value >= 1 && *value <= max;
}

// A PGM file, or false with *error saying why.
static bool read_pgm(const std::string& path, Image* img, std::string* error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        *error = "cannot open '" + path + "': " + std::strerror(errno);
        return false;
    }
    std::string magic;
    if (!pgm_token(in, &magic) || (magic != "P5" && magic != "P2")) {
        *error = "'" + path + "' is not a PGM file (it must start with P5 or P2)";
        return false;
    }
    long long w = 0, h = 0, maxval = 0;
    if (!pgm_number(in, ch07::kMaxSide, &w) || !pgm_number(in, ch07::kMaxSide, &h)) {
        *error = "'" + path + "': width and height must be integers from 1 to " +
                 std::to_string(ch07::kMaxSide);
        return false;
    }
    if (!pgm_number(in, 65535, &maxval)) {
        *error = "'" + path + "': the maximum grey value must be an integer from 1 to 65535";
        return false;
    }
    if (magic == "P5") in.get();  // the single whitespace character after maxval
    if (w * h > (1ll << 28)) {
        *error = "'" + path + "': " + std::to_string(w) + " x " + std::to_string(h) +
                 " pixels is more than this program accepts (2^28)";
        return false;
    }
    const std::size_t count = std::size_t(w) * std::size_t(h);
    const std::size_t bytes_per = maxval > 255 ? 2 : 1;
    // Before the image's memory is allocated, the rest of the file must be able to hold the
    // pixels the header promises (P5: count * bytes_per bytes; P2: a digit and a separator per
    // pixel, the last one's optional), so that a short file with a large header is a message, not
    // gigabytes allocated. A stream that cannot tell its size (a pipe) skips this.
    const std::streamoff here = in.tellg();
    const std::streamoff end = here < 0 ? -1 : std::streamoff(in.seekg(0, std::ios::end).tellg());
    if (here >= 0 && end >= here) {
        in.seekg(here);
        const std::size_t left = std::size_t(end - here);
        const std::size_t least = magic == "P5" ? count * bytes_per : 2 * count - 1;
        if (left < least) {
            *error = "'" + path + "' is truncated: its header promises " + std::to_string(w) +
                     " x " + std::to_string(h) + " pixels (" +
                     (magic == "P5" ? std::to_string(least) + " bytes"
                                    : "at least " + std::to_string(least) + " bytes of text") +
                     "), the " + std::to_string(left) + " bytes after it cannot hold them";
            return false;
        }
    }
    in.clear();
    img->width = int(w);
    img->height = int(h);
    img->maxval = int(maxval);
    img->pixels.resize(count);
    if (magic == "P5") {
        std::vector<unsigned char> raw(count * bytes_per);
        in.read(reinterpret_cast<char*>(raw.data()), std::streamsize(raw.size()));
        if (std::size_t(in.gcount()) != raw.size()) {
            *error = "'" + path + "' is truncated: " + std::to_string(in.gcount()) + " of " +
                     std::to_string(raw.size()) + " bytes of pixel data";
            return false;
        }
        for (std::size_t i = 0; i < count; ++i)
            img->pixels[i] = bytes_per == 1 ? raw[i] : float(raw[2 * i] << 8 | raw[2 * i + 1]);
    } else {
        for (std::size_t i = 0; i < count; ++i) {
            long long v = -1;
            std::string token;
            if (!pgm_token(in, &token)) {
                *error = "'" + path + "' is truncated: " + std::to_string(i) + " of " +
                         std::to_string(count) + " pixels";
                return false;
            }
            if (token.find_first_not_of("0123456789") == std::string::npos && token.size() < 9)
                v = std::stoll(token);
            if (v < 0 || v > maxval) {
                *error = "'" + path + "': pixel " + std::to_string(i) + " is '" + token +
                         "', not an integer from 0 to " + std::to_string(maxval);
                return false;
            }
            img->pixels[i] = float(v);
        }
    }
    for (float p : img->pixels)
        if (p > maxval) {
            *error = "'" + path + "': a pixel exceeds the maximum grey value";
            return false;
        }
    return true;
}

// 8-bit binary PGM of values scaled by 255 / maxval and clamped to [0, 255], with a comment line
// (plot_benchmark.py reads "# kernel: ..." from it for the image figure's title).
static bool write_pgm(const std::string& path, const std::vector<float>& v, int width, int height,
                      double maxval, const std::string& comment) {
    std::ofstream out(path, std::ios::binary);
    out << "P5\n# " << comment << "\n" << width << " " << height << "\n255\n";
    std::vector<unsigned char> bytes(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
        bytes[i] = static_cast<unsigned char>(
            std::lround(std::min(255.0, std::max(0.0, v[i] * 255.0 / maxval))));
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    return bool(out);
}

// A 3x5 bitmap font for the pattern's letters: bit 14 is the top-left pixel.
static int glyph(char c) {
    switch (c) {
        case 'C':
            return 0b111100100100111;
        case 'U':
            return 0b101101101101111;
        case 'D':
            return 0b110101101101110;
        case 'A':
            return 0b010101111101101;
        case 'O':
            return 0b111101101101111;
        case 'N':
            return 0b110101101101101;
        case 'V':
            return 0b101101101101010;
        case '7':
            return 0b111001010010010;
    }
    return 0;
}

// Test pattern: a diagonal gradient, a bright disc and a dark ring (curved edges), a checkerboard,
// stripes that get finer to the right (detail the blur removes), and large and small letters.
static Image test_pattern(int width, int height) {
    Image img;
    img.width = width;
    img.height = height;
    img.pixels.resize(std::size_t(width) * height);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            double v = 40 + 120.0 * (x + y) / (width + height);
            const double dx = x - 0.3 * width, dy = y - 0.4 * height;
            const double d = std::sqrt(dx * dx + dy * dy), rad = 0.18 * std::min(width, height);
            if (d < rad) v = 230;
            if (d > 1.25 * rad && d < 1.4 * rad) v = 15;
            if (x > 0.6 * width && y < 0.45 * height) v = ((x / 32 + y / 32) % 2) ? 200 : 60;
            if (y > 0.75 * height) {
                const int period = 2 + 14 * (width - x) / width;
                v = (x / period) % 2 ? 220 : 30;
            }
            img.pixels[std::size_t(y) * width + x] = float(std::lround(v));
        }
    const char* text = "CUDA CONV 7";
    for (int scale : {std::max(1, width / 100), std::max(1, width / 400)}) {
        const int top = scale > width / 200 ? int(0.52 * height) : int(0.68 * height);
        for (int k = 0; text[k] != '\0'; ++k)
            for (int gy = 0; gy < 5 * scale; ++gy)
                for (int gx = 0; gx < 3 * scale; ++gx) {
                    const int bit = 14 - (gy / scale) * 3 - gx / scale;
                    const int x = width / 20 + k * 4 * scale + gx, y = top + gy;
                    if (x < width && y < height && (glyph(text[k]) >> bit & 1))
                        img.pixels[std::size_t(y) * width + x] = 250;
                }
    }
    return img;
}

struct Filter {
    std::string name;
    int r;
    std::vector<float> weights;  // (2r+1)^2, row-major
};

static std::vector<Filter> filters() {
    const float b[5] = {1, 4, 6, 4, 1};
    Filter gauss{"blur", 2, std::vector<float>(25)};
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j) gauss.weights[i * 5 + j] = b[i] * b[j] / 256.0f;
    return {gauss,
            {"sharpen", 1, {0, -1, 0, -1, 5, -1, 0, -1, 0}},
            {"sobel_x", 1, {-1, 0, 1, -2, 0, 2, -1, 0, 1}},
            {"sobel_y", 1, {-1, -2, -1, 0, 0, 0, 1, 2, 1}}};
}

// The kernel every filter goes through (its launcher comes from the file included above); the
// text output and the PGMs name it.
static const char* const kKernel = "07_94_conv2d_strip_fma";

// The three filters through 07_94's kernel, each output checked against the sequential
// convolution (exactly) before it is timed; the outputs in *outputs (blur, sharpen, Sobel x, y).
// Returns 0, or the exit code of a failure.
static int gpu_filters(const Image& img, const char* source, common::Reporter& report,
                       std::int64_t reps, std::vector<std::vector<float>>* outputs) {
    const common::Device dev = common::require_gpu(report.text());
    std::fprintf(report.text(), "image: %s, %d x %d, maxval %d; filters through %s\n", source,
                 img.width, img.height, img.maxval, kKernel);
    const int w = img.width, h = img.height;
    const std::size_t n = img.pixels.size();
    common::require_device_bytes(8.0 * n, "the image and its output");
    common::DeviceBuffer<float> d_in(img.pixels), d_out(n);
    common::Timer timer(dev, reps);
    for (const Filter& f : filters()) {
        CUDA_CHECK(ch07::upload_filter(f.weights.data(), f.r));
        std::function<void()> launch;
        ch07::with_radius(f.r, [&](auto radius) {
            constexpr int R = decltype(radius)::value;
            launch = [&] { CUDA_CHECK(conv2d_strip_fma<R>(d_in.get(), d_out.get(), w, h)); };
        });
        CUDA_CHECK(cudaMemset(d_out.get(), 0xff, n * sizeof(float)));
        launch();
        CUDA_CHECK(cudaDeviceSynchronize());
        outputs->push_back(d_out.to_host());
        const std::vector<double> want = ch07::conv2d_sequential(img.pixels, f.weights, f.r, w, h);
        // Exact: integer pixels times multiples of 1/256, sums below 2^16 * 2^8 (see the top).
        if (!ch07::check_at(f.name, outputs->back().data(), want.data(), n, {},
                            [&](std::size_t i) { return ch07::xy(i, w); }))
            return common::kExitWrong;
        // Bytes: the image read once and the output written once.
        report.print({"07_98_image_filter", f.name, std::int64_t(n), timer.median_ms(launch),
                      8.0 * n, dev.peak_gbps});
    }
    return 0;
}

static int run(int argc, char** argv) {
    common::Options opt;
    opt.n = 1024;
    std::string in_path, out_dir = ".";
    common::Cli cli("07_98_image_filter",
                    "blur, sharpen and Sobel through 07_94's kernel, on a PGM (--in) or a test "
                    "pattern of --n x 3n/4");
    // No --seed: neither the test pattern nor a file is random.
    cli.add_n(opt, 16, 16384, "width of the test pattern (its height: 3n/4)");
    cli.add_reps(opt);
    cli.add_csv(opt);
    cli.add_string("--in", &in_path, "a PGM image, P5 or P2, 8 or 16 bits", "the test pattern");
    cli.add_string("--out-dir", &out_dir,
                   "where input.pgm, blur.pgm, sharpen.pgm and sobel.pgm go, made if missing");
    bool host_reference = false;
    cli.add_flag("--host-reference", &host_reference,
                 "no GPU: the images from the sequential convolution (the pixels the GPU's "
                 "output is checked to equal), nothing timed");
    cli.parse_or_exit(argc, argv);
    const bool has_in = cli.given("--in");
    if (has_in && cli.given("--n"))
        cli.usage_error("--n sizes the test pattern; an image from --in has its own size");
    if (host_reference && (cli.given("--reps") || cli.given("--csv")))
        cli.usage_error("--host-reference times nothing: --reps and --csv have nothing to do");
    std::string error;
    if (!common::make_output_dir(out_dir, &error)) cli.usage_error(error);
    common::Reporter report(opt.csv);

    Image img;
    if (has_in) {
        if (!read_pgm(in_path, &img, &error)) {
            std::fprintf(stderr, "07_98_image_filter: %s\n", error.c_str());
            return common::kExitWrong;
        }
    } else {
        img = test_pattern(int(opt.n), int(opt.n * 3 / 4));
    }
    const int w = img.width, h = img.height;
    const std::size_t n = img.pixels.size();
    const char* source = has_in ? in_path.c_str() : "test pattern";
    std::vector<std::vector<float>> outputs;
    if (host_reference) {
        std::fprintf(report.text(),
                     "image: %s, %d x %d, maxval %d; filters by the sequential convolution on "
                     "the host (no GPU used)\n",
                     source, w, h, img.maxval);
        // Every sum is exact in float (see the top), so this is the GPU's output bit for bit.
        for (const Filter& f : filters()) {
            const std::vector<double> want =
                ch07::conv2d_sequential(img.pixels, f.weights, f.r, w, h);
            outputs.emplace_back(want.begin(), want.end());
        }
    } else if (const int status = gpu_filters(img, source, report, opt.reps, &outputs)) {
        return status;
    }
    std::vector<float> sobel(n);
    for (std::size_t i = 0; i < n; ++i)
        sobel[i] = std::sqrt(outputs[2][i] * outputs[2][i] + outputs[3][i] * outputs[3][i]);

    const std::string through =
        host_reference ? "host: the sequential convolution (07_98_image_filter --host-reference, "
                       : std::string("kernel: ") + kKernel + " (07_98_image_filter, ";
    const std::tuple<const char*, const std::vector<float>*, std::string> files[] = {
        {"input.pgm", &img.pixels, "07_98_image_filter input"},
        {"blur.pgm", &outputs[0], through + "5x5 Gaussian blur)"},
        {"sharpen.pgm", &outputs[1], through + "3x3 sharpen)"},
        {"sobel.pgm", &sobel, through + "3x3 Sobel magnitude)"}};
    for (const auto& [name, data, comment] : files) {
        const std::string path = out_dir + "/" + name;
        if (!write_pgm(path, *data, w, h, img.maxval, comment)) {
            std::fprintf(stderr, "07_98_image_filter: cannot write '%s'\n", path.c_str());
            return common::kExitWrong;
        }
    }
    std::fprintf(report.text(),
                 "%s: blur, sharpen, Sobel x and y, every pixel; wrote input.pgm, blur.pgm, "
                 "sharpen.pgm, sobel.pgm to %s\n",
                 host_reference ? "computed on the host" : "verified", out_dir.c_str());
    return common::kExitOk;
}

// A host allocation that fails (a large image on a machine with little memory) is a message and
// exit 1, not an abort.
int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "07_98_image_filter: out of host memory (std::bad_alloc)\n");
        return common::kExitWrong;
    }
}
