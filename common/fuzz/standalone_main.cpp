// Replays a libFuzzer entry point without libFuzzer (g++ builds): every file
// named on the command line (directories are walked), then a fixed number of
// deterministic mutations of each, so the seed corpus runs under ASan/UBSan on
// every ordinary build.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void run(const std::vector<uint8_t>& bytes) {
    // Copy into an exactly-sized heap buffer so ASan catches reads past the end.
    auto* buf = new uint8_t[bytes.size() ? bytes.size() : 1];
    std::copy(bytes.begin(), bytes.end(), buf);
    LLVMFuzzerTestOneInput(buf, bytes.size());
    delete[] buf;
}

int main(int argc, char** argv) {
    namespace fs = std::filesystem;
    std::vector<fs::path> files;
    for (int i = 1; i < argc; ++i) {
        fs::path p = argv[i];
        if (fs::is_directory(p)) {
            for (auto& e : fs::recursive_directory_iterator(p))
                if (e.is_regular_file()) files.push_back(e.path());
        } else {
            files.push_back(p);
        }
    }
    std::mt19937_64 rng(12345);
    size_t runs = 0;
    run({});
    for (auto& f : files) {
        std::ifstream in(f, std::ios::binary);
        std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
        run(bytes);
        ++runs;
        for (int m = 0; m < 200; ++m) {
            auto mutated = bytes;
            int edits = 1 + static_cast<int>(rng() % 4);
            for (int e = 0; e < edits; ++e) {
                switch (rng() % 4) {
                    case 0:
                        if (!mutated.empty()) mutated[rng() % mutated.size()] = static_cast<uint8_t>(rng());
                        break;
                    case 1:
                        if (!mutated.empty()) mutated.resize(rng() % mutated.size());
                        break;
                    case 2: mutated.insert(mutated.begin() + static_cast<long>(mutated.empty() ? 0 : rng() % mutated.size()), static_cast<uint8_t>(rng())); break;
                    default:
                        if (!mutated.empty()) mutated[rng() % mutated.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
                }
            }
            run(mutated);
            ++runs;
        }
    }
    std::cout << "replayed " << files.size() << " seed files, " << runs << " inputs\n";
    return 0;
}
