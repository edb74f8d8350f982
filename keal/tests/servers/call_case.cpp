#include "call_case.hpp"

namespace keal::servers {

std::string describe(const Call& call) {
    std::string out = call.function + "(";
    for (std::size_t i = 0; i < call.args.size(); ++i) {
        const Arg& a = call.args[i];
        if (i) out += ", ";
        if (a.is_null) {
            out += "NULL";
            continue;
        }
        switch (a.kind) {
            case Kind::Int: out += std::to_string(a.i); break;
            case Kind::Float: out += render_float(a.f); break;
            case Kind::Bool: out += a.b ? "true" : "false"; break;
            case Kind::Text: out += "'" + a.t + "'"; break;
            case Kind::Json: out += "'" + a.t + "'"; break;
        }
    }
    return out + ")";
}

}  // namespace keal::servers
