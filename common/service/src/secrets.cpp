#include "sluice/service/secrets.hpp"

#include <cctype>

namespace sluice::service {

namespace {

// Where a URL's authority ends: the parsers stop at '/', '?' or '#'; text
// around a URL ends it at a blank or a quote.
bool ends_authority(char c) {
    return c == '/' || c == '?' || c == '#' || c == ' ' || c == '\t' || c == '\n' || c == '"' || c == '\'' ||
           c == ',' || c == ')' || c == '>';
}

bool ends_value(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '&' || c == '"' || c == '\'' || c == ';'; }

std::string mask_userinfo(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    for (;;) {
        const auto scheme = text.find("://", i);
        if (scheme == std::string_view::npos) break;
        const std::size_t begin = scheme + 3;
        std::size_t end = begin;
        while (end < text.size() && !ends_authority(text[end])) ++end;
        const std::string_view authority = text.substr(begin, end - begin);
        const auto at = authority.rfind('@');
        const auto colon = at == std::string_view::npos ? std::string_view::npos : authority.substr(0, at).find(':');
        if (colon == std::string_view::npos) {
            out.append(text.substr(i, end - i));
        } else {
            out.append(text.substr(i, begin + colon + 1 - i));
            out += "***";
            out.append(text.substr(begin + at, end - (begin + at)));
        }
        i = end;
    }
    out.append(text.substr(i));
    return out;
}

}  // namespace

std::string mask_secrets(std::string_view text) {
    std::string s = mask_userinfo(text);
    static constexpr std::string_view key = "password=";
    std::string out;
    out.reserve(s.size());
    std::size_t i = 0;
    while (i < s.size()) {
        bool match = s.size() - i >= key.size();
        for (std::size_t k = 0; match && k < key.size(); ++k)
            match = std::tolower(static_cast<unsigned char>(s[i + k])) == key[k];
        // A whole key only (not e.g. "old_password=" inside another word).
        if (match && i > 0 && (std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_')) match = false;
        if (!match) {
            out += s[i++];
            continue;
        }
        out.append(s, i, key.size());
        i += key.size();
        std::size_t end = i;
        while (end < s.size() && !ends_value(s[end])) ++end;
        if (end > i) out += "***";
        i = end;
    }
    return out;
}

}  // namespace sluice::service
