#pragma once
// Exact JSON text comparisons for the CDC tests: a top-level object split
// into its members' raw texts (no re-serialisation, so "1.50" stays "1.50"
// and 3.4028235e+38 stays as written).
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice::mariadb::test {

// The end of the JSON value starting at s[i].
inline std::size_t value_end(std::string_view s, std::size_t i) {
    if (i >= s.size()) throw std::runtime_error("json scan: value expected");
    if (s[i] == '"') {
        for (std::size_t j = i + 1; j < s.size(); ++j) {
            if (s[j] == '\\') ++j;
            else if (s[j] == '"') return j + 1;
        }
        throw std::runtime_error("json scan: unterminated string");
    }
    if (s[i] == '{' || s[i] == '[') {
        int depth = 0;
        for (std::size_t j = i; j < s.size(); ++j) {
            if (s[j] == '"') {
                j = value_end(s, j) - 1;
            } else if (s[j] == '{' || s[j] == '[') {
                ++depth;
            } else if (s[j] == '}' || s[j] == ']') {
                if (--depth == 0) return j + 1;
            }
        }
        throw std::runtime_error("json scan: unbalanced");
    }
    std::size_t j = i;
    while (j < s.size() && s[j] != ',' && s[j] != '}' && s[j] != ']') ++j;
    return j;
}

using Members = std::vector<std::pair<std::string, std::string>>;

// {"k":v,...} -> [(k, raw v)], keys unescaped only as far as the tests need
// (plain ASCII names).
inline Members members(std::string_view obj) {
    Members out;
    if (obj.size() < 2 || obj.front() != '{') throw std::runtime_error("json scan: not an object: " + std::string(obj));
    std::size_t i = 1;
    while (i < obj.size() && obj[i] != '}') {
        std::size_t key_end = value_end(obj, i);
        std::string key(obj.substr(i + 1, key_end - i - 2));
        i = key_end + 1;  // ':'
        std::size_t v_end = value_end(obj, i);
        out.emplace_back(key, std::string(obj.substr(i, v_end - i)));
        i = v_end;
        if (i < obj.size() && obj[i] == ',') ++i;
    }
    return out;
}

// The raw text of member `key` of the object `obj` ("" when absent).
inline std::string member(std::string_view obj, std::string_view key) {
    for (auto& [k, v] : members(obj))
        if (k == key) return v;
    return "";
}

// The raw elements of a JSON array.
inline std::vector<std::string> elements(std::string_view arr) {
    std::vector<std::string> out;
    if (arr.size() < 2 || arr.front() != '[') throw std::runtime_error("json scan: not an array");
    std::size_t i = 1;
    while (i < arr.size() && arr[i] != ']') {
        std::size_t e = value_end(arr, i);
        out.emplace_back(arr.substr(i, e - i));
        i = e;
        if (i < arr.size() && arr[i] == ',') ++i;
    }
    return out;
}

}  // namespace sluice::mariadb::test
