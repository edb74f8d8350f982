// The plugins that send the password itself: mysql_clear_password and dialog
// (PAM). Both are refused unless the transport protects the password or the
// caller explicitly accepted the risk.
#include <string>

#include "plugins.hpp"
#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::detail {

void require_cleartext_allowed(std::string_view plugin, const AuthContext& context) {
    if (context.secure_transport || context.allow_cleartext) return;
    throw Error(ErrorKind::auth, "the server asks for auth plugin '" + std::string(plugin) +
                                     "', which sends the password in clear, on a connection without TLS; "
                                     "use TLS (ssl-mode=require or stricter) or allow cleartext passwords "
                                     "explicitly");
}

namespace {

std::vector<std::uint8_t> password_with_nul(const AuthContext& context) {
    std::vector<std::uint8_t> out(context.password.begin(), context.password.end());
    out.push_back(0);
    return out;
}

class ClearPassword final : public AuthPlugin {
public:
    std::string_view name() const override { return "mysql_clear_password"; }

    std::vector<std::uint8_t> start(std::span<const std::uint8_t> /*plugin_data*/,
                                    const AuthContext& context) override {
        require_cleartext_allowed(name(), context);
        return password_with_nul(context);
    }
};

// dialog: the server (PAM) asks questions; each packet is one byte of
// question type followed by the prompt text. Type 2 is an ordinary question,
// 4 a password question; the low bit marks the last one. A non-interactive
// client answers every question with the password (the usual PAM stacks ask
// only for it), as a NUL-terminated string.
class Dialog final : public AuthPlugin {
public:
    // A server that keeps asking must not keep us in the exchange forever.
    static constexpr int max_questions = 16;

    std::string_view name() const override { return "dialog"; }

    std::vector<std::uint8_t> start(std::span<const std::uint8_t> plugin_data,
                                    const AuthContext& context) override {
        require_cleartext_allowed(name(), context);
        return answer(plugin_data, context);
    }

    std::optional<std::vector<std::uint8_t>> more(std::span<const std::uint8_t> data,
                                                  const AuthContext& context) override {
        return answer(data, context);
    }

private:
    std::vector<std::uint8_t> answer(std::span<const std::uint8_t> question, const AuthContext& context) {
        if (!question.empty()) {
            const unsigned type = question[0] >> 1U;
            if (type != 1 && type != 2) {
                throw Error(ErrorKind::protocol, "dialog: unknown question type " + std::to_string(question[0]) +
                                                     " from the server");
            }
        }
        if (++questions_ > max_questions) {
            throw Error(ErrorKind::auth, "dialog: the server asked more than " + std::to_string(max_questions) +
                                             " questions");
        }
        return password_with_nul(context);
    }

    int questions_ = 0;
};

}  // namespace

std::unique_ptr<AuthPlugin> make_clear_password() { return std::make_unique<ClearPassword>(); }
std::unique_ptr<AuthPlugin> make_dialog() { return std::make_unique<Dialog>(); }

}  // namespace sluice::mariadb::detail
