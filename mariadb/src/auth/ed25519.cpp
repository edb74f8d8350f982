// client_ed25519 (MariaDB's ed25519 plugin).
//
// MariaDB signs the server's 32-byte scramble with an Ed25519 key derived
// from the password itself: the 64-byte "expanded key" is SHA-512(password)
// (standard Ed25519 hashes a 32-byte seed instead), the clamped first half is
// the secret scalar a, the second half seeds the nonce. Hence the steps
// below with libsodium's low-level primitives:
//   az = SHA512(password); clamp az[0..32) -> a;  A = a*B
//   r  = SHA512(az[32..64) || m) mod L;           R = r*B
//   k  = SHA512(R || A || m) mod L;                S = (r + k*a) mod L
//   signature = R || S  (64 bytes), which the server checks against A.
#include <sodium.h>

#include <array>
#include <cstring>
#include <string>

#include "plugins.hpp"
#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::detail {
namespace {

class Ed25519 final : public AuthPlugin {
public:
    std::string_view name() const override { return "client_ed25519"; }

    std::vector<std::uint8_t> start(std::span<const std::uint8_t> plugin_data,
                                    const AuthContext& context) override {
        // The scramble is 32 random bytes, sent as they are; only a 33rd
        // byte may be a NUL terminator. Stripping a NUL from 32 bytes would
        // refuse every login whose scramble happens to end in zero (1/256).
        const auto message = plugin_data.size() == 33 ? strip_trailing_nul(plugin_data) : plugin_data;
        if (message.size() != 32) {
            throw Error(ErrorKind::protocol, "client_ed25519: the server's scramble has " +
                                                 std::to_string(message.size()) + " bytes, expected 32");
        }
        if (sodium_init() < 0) throw Error(ErrorKind::auth, "client_ed25519: libsodium failed to initialise");

        std::array<unsigned char, crypto_hash_sha512_BYTES> az{};
        crypto_hash_sha512(az.data(), reinterpret_cast<const unsigned char*>(context.password.data()),
                           context.password.size());
        az[0] &= 248;
        az[31] &= 63;
        az[31] |= 64;

        // a, reduced mod L (the scalar arithmetic below expects reduced input).
        std::array<unsigned char, 64> wide{};
        std::memcpy(wide.data(), az.data(), 32);
        std::array<unsigned char, 32> a{};
        crypto_core_ed25519_scalar_reduce(a.data(), wide.data());

        std::array<unsigned char, 32> public_key{};
        // The clamped scalar, not the reduced one: both give the same point,
        // and this is the computation the server did when storing A.
        if (crypto_scalarmult_ed25519_base_noclamp(public_key.data(), az.data()) != 0) {
            throw Error(ErrorKind::auth, "client_ed25519: cannot derive the public key");
        }

        std::array<unsigned char, crypto_hash_sha512_BYTES> nonce_hash{};
        crypto_hash_sha512_state state;
        crypto_hash_sha512_init(&state);
        crypto_hash_sha512_update(&state, az.data() + 32, 32);
        crypto_hash_sha512_update(&state, message.data(), message.size());
        crypto_hash_sha512_final(&state, nonce_hash.data());
        std::array<unsigned char, 32> r{};
        crypto_core_ed25519_scalar_reduce(r.data(), nonce_hash.data());

        std::vector<std::uint8_t> signature(64);
        if (crypto_scalarmult_ed25519_base_noclamp(signature.data(), r.data()) != 0) {
            throw Error(ErrorKind::auth, "client_ed25519: nonce gave the neutral point");
        }

        std::array<unsigned char, crypto_hash_sha512_BYTES> k_hash{};
        crypto_hash_sha512_init(&state);
        crypto_hash_sha512_update(&state, signature.data(), 32);
        crypto_hash_sha512_update(&state, public_key.data(), 32);
        crypto_hash_sha512_update(&state, message.data(), message.size());
        crypto_hash_sha512_final(&state, k_hash.data());
        std::array<unsigned char, 32> k{};
        crypto_core_ed25519_scalar_reduce(k.data(), k_hash.data());

        std::array<unsigned char, 32> ka{};
        crypto_core_ed25519_scalar_mul(ka.data(), k.data(), a.data());
        crypto_core_ed25519_scalar_add(signature.data() + 32, r.data(), ka.data());

        sodium_memzero(az.data(), az.size());
        sodium_memzero(wide.data(), wide.size());
        sodium_memzero(a.data(), a.size());
        sodium_memzero(ka.data(), ka.size());
        return signature;
    }
};

}  // namespace

std::unique_ptr<AuthPlugin> make_ed25519() { return std::make_unique<Ed25519>(); }

}  // namespace sluice::mariadb::detail
