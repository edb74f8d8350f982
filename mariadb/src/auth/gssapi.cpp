// auth_gssapi_client (Kerberos through GSSAPI).
//
// The server's first packet is its service principal name, NUL, and a
// mechanism name (empty on Unix). The client loops on gss_init_sec_context:
// each output token goes to the server, each server packet is the next input
// token, until the context is established and the server answers OK. The
// credentials come from the default ccache (KRB5CCNAME) and configuration
// (KRB5_CONFIG), read by libkrb5 itself.
#include <gssapi/gssapi.h>
#include <gssapi/gssapi_krb5.h>

#include <algorithm>
#include <string>

#include "plugins.hpp"
#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::detail {
namespace {

// GSS's major and minor status as text, e.g. "Unspecified GSS failure.
// Minor code may provide more information: No Kerberos credentials available".
std::string status_text(OM_uint32 major, OM_uint32 minor) {
    std::string text;
    auto append = [&](OM_uint32 code, int type, const gss_OID mech) {
        OM_uint32 context = 0;
        do {
            OM_uint32 ignored = 0;
            gss_buffer_desc message = GSS_C_EMPTY_BUFFER;
            if (GSS_ERROR(gss_display_status(&ignored, code, type, mech, &context, &message))) break;
            if (!text.empty()) text += ": ";
            text.append(static_cast<const char*>(message.value), message.length);
            gss_release_buffer(&ignored, &message);
        } while (context != 0);
    };
    append(major, GSS_C_GSS_CODE, GSS_C_NO_OID);
    if (minor != 0) append(minor, GSS_C_MECH_CODE, GSS_C_NO_OID);
    return text;
}

class Gssapi final : public AuthPlugin {
public:
    Gssapi() = default;
    Gssapi(const Gssapi&) = delete;
    Gssapi& operator=(const Gssapi&) = delete;
    ~Gssapi() override {
        OM_uint32 minor = 0;
        if (context_ != GSS_C_NO_CONTEXT) gss_delete_sec_context(&minor, &context_, GSS_C_NO_BUFFER);
        if (target_ != GSS_C_NO_NAME) gss_release_name(&minor, &target_);
    }

    std::string_view name() const override { return "auth_gssapi_client"; }

    std::vector<std::uint8_t> start(std::span<const std::uint8_t> plugin_data,
                                    const AuthContext& /*context*/) override {
        const auto nul = std::find(plugin_data.begin(), plugin_data.end(), std::uint8_t{0});
        spn_.assign(plugin_data.begin(), nul);
        if (spn_.empty()) {
            throw Error(ErrorKind::protocol, "auth_gssapi_client: the server sent no service principal name");
        }
        // The SPN is a full Kerberos principal ("mariadb/host@REALM"), so it
        // is imported as a user name, not as a host-based service name.
        gss_buffer_desc name_buffer{spn_.size(), spn_.data()};
        OM_uint32 minor = 0;
        const OM_uint32 major = gss_import_name(&minor, &name_buffer, GSS_C_NT_USER_NAME, &target_);
        if (GSS_ERROR(major)) {
            throw Error(ErrorKind::auth, "auth_gssapi_client: cannot import service principal '" + spn_ +
                                             "': " + status_text(major, minor));
        }
        auto token = step({});
        if (!token) {
            throw Error(ErrorKind::auth, "auth_gssapi_client: GSSAPI produced no initial token for '" + spn_ + "'");
        }
        return std::move(*token);
    }

    std::optional<std::vector<std::uint8_t>> more(std::span<const std::uint8_t> data,
                                                  const AuthContext& /*context*/) override {
        if (established_) {
            throw Error(ErrorKind::protocol,
                        "auth_gssapi_client: the server sent more data after the security context was established");
        }
        return step(data);
    }

private:
    std::optional<std::vector<std::uint8_t>> step(std::span<const std::uint8_t> input) {
        gss_buffer_desc input_token{input.size(), const_cast<std::uint8_t*>(input.data())};
        gss_buffer_desc output_token = GSS_C_EMPTY_BUFFER;
        OM_uint32 minor = 0;
        const OM_uint32 major =
            gss_init_sec_context(&minor, GSS_C_NO_CREDENTIAL, &context_, target_, GSS_C_NO_OID, 0, 0,
                                 GSS_C_NO_CHANNEL_BINDINGS, input.empty() ? GSS_C_NO_BUFFER : &input_token,
                                 nullptr, &output_token, nullptr, nullptr);
        std::vector<std::uint8_t> out;
        if (output_token.length > 0) {
            const auto* bytes = static_cast<const std::uint8_t*>(output_token.value);
            out.assign(bytes, bytes + output_token.length);
        }
        OM_uint32 ignored = 0;
        gss_release_buffer(&ignored, &output_token);
        if (GSS_ERROR(major)) {
            throw Error(ErrorKind::auth, "auth_gssapi_client: cannot authenticate to '" + spn_ +
                                             "': " + status_text(major, minor));
        }
        established_ = (major & GSS_S_CONTINUE_NEEDED) == 0;
        if (out.empty()) return std::nullopt;
        return out;
    }

    std::string spn_;
    gss_name_t target_ = GSS_C_NO_NAME;
    gss_ctx_id_t context_ = GSS_C_NO_CONTEXT;
    bool established_ = false;
};

}  // namespace

std::unique_ptr<AuthPlugin> make_gssapi() { return std::make_unique<Gssapi>(); }

}  // namespace sluice::mariadb::detail
