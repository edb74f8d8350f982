// mysql_native_password:
//   response = SHA1(password) XOR SHA1(scramble || SHA1(SHA1(password)))
// The server stores SHA1(SHA1(password)); it recovers SHA1(password) from the
// response and checks its hash, so the password itself never travels.
#include <openssl/evp.h>
#include <openssl/sha.h>

#include <array>
#include <string>

#include "plugins.hpp"
#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::detail {
namespace {

using Sha1 = std::array<std::uint8_t, SHA_DIGEST_LENGTH>;

Sha1 sha1(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b = {}) {
    Sha1 out{};
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    const bool ok = ctx != nullptr && EVP_DigestInit_ex(ctx, EVP_sha1(), nullptr) == 1 &&
                    EVP_DigestUpdate(ctx, a.data(), a.size()) == 1 &&
                    EVP_DigestUpdate(ctx, b.data(), b.size()) == 1 &&
                    EVP_DigestFinal_ex(ctx, out.data(), nullptr) == 1;
    EVP_MD_CTX_free(ctx);
    if (!ok) throw Error(ErrorKind::auth, "mysql_native_password: SHA1 failed in OpenSSL");
    return out;
}

class NativePassword final : public AuthPlugin {
public:
    std::string_view name() const override { return "mysql_native_password"; }

    std::vector<std::uint8_t> start(std::span<const std::uint8_t> plugin_data,
                                    const AuthContext& context) override {
        // An empty password is sent as an empty response, not as a hash.
        if (context.password.empty()) return {};
        const auto scramble = strip_trailing_nul(plugin_data);
        if (scramble.size() != 20) {
            throw Error(ErrorKind::protocol, "mysql_native_password: the server's scramble has " +
                                                 std::to_string(scramble.size()) + " bytes, expected 20");
        }
        const std::span<const std::uint8_t> password(
            reinterpret_cast<const std::uint8_t*>(context.password.data()), context.password.size());
        const Sha1 stage1 = sha1(password);
        const Sha1 stage2 = sha1(stage1);
        const Sha1 mask = sha1(scramble, stage2);
        std::vector<std::uint8_t> response(stage1.size());
        for (std::size_t i = 0; i < stage1.size(); ++i) response[i] = stage1[i] ^ mask[i];
        return response;
    }
};

}  // namespace

std::unique_ptr<AuthPlugin> make_native_password() { return std::make_unique<NativePassword>(); }

std::span<const std::uint8_t> strip_trailing_nul(std::span<const std::uint8_t> data) {
    if (!data.empty() && data.back() == 0) return data.first(data.size() - 1);
    return data;
}

}  // namespace sluice::mariadb::detail
