#pragma once
// A CA of the test's own, made in-process with OpenSSL (P-256, SHA-256), and
// server certificates it signs for chosen IP addresses and validity windows
// (an expired one included, which the openssl 3.0 command line cannot
// backdate). Files live in a temporary directory removed with the object;
// one left by a process that died (killed mid-test) is removed by the next.
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>

namespace sluice::mariadb::test {

struct CertificateFiles {
    std::string cert;  // PEM certificate
    std::string key;   // PEM private key
};

class TestCa {
public:
    TestCa()
        : dir_(std::filesystem::temp_directory_path() / (prefix + std::to_string(::getpid()))),
          key_(new_key()),
          cert_(new_cert()) {
        remove_orphans();
        std::filesystem::create_directories(dir_);
        X509* ca = cert_.get();
        set_names(ca, "sluice netns test CA", nullptr);
        add_extension(ca, ca, NID_basic_constraints, "critical,CA:TRUE");
        add_extension(ca, ca, NID_key_usage, "critical,keyCertSign,cRLSign");
        set_validity(ca, -3600, 86400);
        X509_set_pubkey(ca, key_.get());
        sign(ca);
        write_cert(ca, ca_file());
    }
    ~TestCa() {
        std::error_code ignored;
        std::filesystem::remove_all(dir_, ignored);
    }
    TestCa(const TestCa&) = delete;
    TestCa& operator=(const TestCa&) = delete;

    std::string ca_file() const { return (dir_ / "ca.pem").string(); }

    // A server certificate for `san` (e.g. "IP:10.231.19.2"), valid from
    // now + not_before_s to now + not_after_s seconds.
    CertificateFiles issue(const std::string& name, const std::string& san, long not_before_s = -3600,
                           long not_after_s = 86400) {
        KeyPtr key = new_key();
        CertPtr cert = new_cert();
        X509* x = cert.get();
        set_names(x, name.c_str(), cert_.get());
        add_extension(x, cert_.get(), NID_subject_alt_name, san.c_str());
        add_extension(x, cert_.get(), NID_basic_constraints, "CA:FALSE");
        add_extension(x, cert_.get(), NID_ext_key_usage, "serverAuth");
        set_validity(x, not_before_s, not_after_s);
        X509_set_pubkey(x, key.get());
        sign(x);
        CertificateFiles files{(dir_ / (name + ".pem")).string(), (dir_ / (name + "-key.pem")).string()};
        write_cert(x, files.cert);
        std::FILE* f = std::fopen(files.key.c_str(), "w");
        if (f == nullptr || PEM_write_PrivateKey(f, key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1) {
            if (f != nullptr) std::fclose(f);
            throw std::runtime_error("cannot write " + files.key);
        }
        std::fclose(f);
        return files;
    }

private:
    static constexpr const char* prefix = "sluice-test-ca-";

    // Directories of processes that no longer exist.
    static void remove_orphans() {
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::temp_directory_path(), ec)) {
            const std::string name = entry.path().filename().string();
            if (name.rfind(prefix, 0) != 0) continue;
            const std::string digits = name.substr(std::string(prefix).size());
            if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
            const long pid = std::stol(digits);
            if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
                std::error_code ignored;
                std::filesystem::remove_all(entry.path(), ignored);
            }
        }
    }

    struct KeyDeleter {
        void operator()(EVP_PKEY* k) const noexcept { EVP_PKEY_free(k); }
    };
    struct CertDeleter {
        void operator()(X509* x) const noexcept { X509_free(x); }
    };
    using KeyPtr = std::unique_ptr<EVP_PKEY, KeyDeleter>;
    using CertPtr = std::unique_ptr<X509, CertDeleter>;

    static KeyPtr new_key() {
        KeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
        if (!key) throw std::runtime_error("cannot make a P-256 key");
        return key;
    }
    CertPtr new_cert() {
        CertPtr x(X509_new());
        if (!x) throw std::runtime_error("X509_new failed");
        X509_set_version(x.get(), 2);  // v3
        ASN1_INTEGER_set(X509_get_serialNumber(x.get()), ++serial_);
        return x;
    }
    // Subject CN = cn; issuer = the CA's subject (itself when issuer is null).
    static void set_names(X509* x, const char* cn, X509* issuer) {
        X509_NAME* subject = X509_get_subject_name(x);
        X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn), -1,
                                   -1, 0);
        X509_set_issuer_name(x, issuer != nullptr ? X509_get_subject_name(issuer) : subject);
    }
    static void add_extension(X509* x, X509* issuer, int nid, const char* value) {
        X509V3_CTX ctx;
        X509V3_set_ctx(&ctx, issuer, x, nullptr, nullptr, 0);
        X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
        if (ext == nullptr || X509_add_ext(x, ext, -1) != 1) {
            X509_EXTENSION_free(ext);
            throw std::runtime_error(std::string("cannot add extension ") + value);
        }
        X509_EXTENSION_free(ext);
    }
    static void set_validity(X509* x, long not_before_s, long not_after_s) {
        X509_gmtime_adj(X509_getm_notBefore(x), not_before_s);
        X509_gmtime_adj(X509_getm_notAfter(x), not_after_s);
    }
    void sign(X509* x) const {
        if (X509_sign(x, key_.get(), EVP_sha256()) == 0) throw std::runtime_error("X509_sign failed");
    }
    static void write_cert(X509* x, const std::string& path) {
        std::FILE* f = std::fopen(path.c_str(), "w");
        if (f == nullptr || PEM_write_X509(f, x) != 1) {
            if (f != nullptr) std::fclose(f);
            throw std::runtime_error("cannot write " + path);
        }
        std::fclose(f);
    }

    std::filesystem::path dir_;
    long serial_ = 0;
    KeyPtr key_;
    CertPtr cert_;
};

}  // namespace sluice::mariadb::test
