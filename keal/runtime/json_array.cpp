// The JSON reader behind keal_json_array.h: a JSON array of Keal scalars,
// parsed with simdjson and checked completely here, so that the C side only
// copies (its errors longjmp, which must not cross these frames). Built
// into libkeal_json.a, linked into SQLite extensions and MariaDB UDF
// libraries by the driver; every exception stays inside.
#include <simdjson.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include <stdbool.h>

// The C declarations, repeated for C++ (keal_json_array.h needs the runtime's C headers).
struct keal_json_item {
  std::int64_t i;
  double f;
  std::int64_t off;
  std::int64_t len;
  unsigned char is_null;
  unsigned char b;
};
struct keal_json_parsed {
  keal_json_item* items;
  std::int64_t count;
  char* strings;
  char sqlstate[6];
  char error[240];
};
int keal_json_parse_array(const char* json, std::size_t len, int kind, int nullable, const char* param, keal_json_parsed* out);
void keal_json_parsed_free(keal_json_parsed* parsed);
}

namespace {

// keal_array.h's enum keal_elem_kind.
enum Kind { Int, Float, Bool, Text, Char, Bytes };

const char* kind_name(int kind) {
  static const char* const names[] = {"int", "float", "bool", "text", "char", "bytes"};
  return names[kind];
}

const char* json_type_name(simdjson::dom::element_type t) {
  switch (t) {
    case simdjson::dom::element_type::ARRAY: return "an array";
    case simdjson::dom::element_type::OBJECT: return "an object";
    case simdjson::dom::element_type::INT64:
    case simdjson::dom::element_type::UINT64: return "an integer";
    case simdjson::dom::element_type::DOUBLE: return "a number with a fraction or exponent";
    case simdjson::dom::element_type::STRING: return "a string";
    case simdjson::dom::element_type::BOOL: return "a boolean";
    case simdjson::dom::element_type::NULL_VALUE: return "null";
  }
  return "a value";
}

int fail(keal_json_parsed* out, const char* sqlstate, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
int fail(keal_json_parsed* out, const char* sqlstate, const char* fmt, ...) {
  std::memcpy(out->sqlstate, sqlstate, 6);
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(out->error, sizeof out->error, fmt, ap);
  va_end(ap);
  out->items = nullptr;
  out->strings = nullptr;
  out->count = 0;
  return -1;
}

// Exactly one Unicode scalar value of UTF-8 (simdjson has validated the encoding).
bool one_char(std::string_view s) {
  if (s.empty()) return false;
  auto b = static_cast<unsigned char>(s[0]);
  std::size_t n = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : 4;
  return s.size() == n;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

extern "C" int keal_json_parse_array(const char* json, std::size_t len, int kind, int nullable, const char* param,
                                     keal_json_parsed* out) {
  try {
    thread_local simdjson::dom::parser parser;
    simdjson::dom::element doc;
    if (auto error = parser.parse(json, len, true).get(doc)) {
      return fail(out, "22P02", "argument %s is not valid JSON: %s", param, simdjson::error_message(error));
    }
    if (doc.type() != simdjson::dom::element_type::ARRAY) {
      return fail(out, "22023", "argument %s must be a JSON array (Keal [%s]), not %s", param, kind_name(kind),
                  json_type_name(doc.type()));
    }
    simdjson::dom::array array = doc.get_array().value_unsafe();
    std::vector<keal_json_item> items;
    std::string strings;
    std::int64_t index = 0;
    for (simdjson::dom::element e : array) {
      keal_json_item item{};
      const simdjson::dom::element_type t = e.type();
      if (t == simdjson::dom::element_type::NULL_VALUE) {
        if (!nullable) {
          return fail(out, "22004", "argument %s has a NULL at index %lld; declare its elements nullable ([T?])", param,
                      static_cast<long long>(index));
        }
        item.is_null = 1;
      } else {
        bool ok = false;
        switch (kind) {
          case Int:
            if (t == simdjson::dom::element_type::INT64) {
              item.i = e.get_int64().value_unsafe();
              ok = true;
            } else if (t == simdjson::dom::element_type::UINT64) {
              return fail(out, "22003", "argument %s: element %lld is out of range for int", param, static_cast<long long>(index));
            }
            break;
          case Float:
            if (t == simdjson::dom::element_type::INT64 || t == simdjson::dom::element_type::UINT64 ||
                t == simdjson::dom::element_type::DOUBLE) {
              item.f = e.get_double().value_unsafe();
              ok = true;
            }
            break;
          case Bool:
            if (t == simdjson::dom::element_type::BOOL) {
              item.b = e.get_bool().value_unsafe() ? 1 : 0;
              ok = true;
            }
            break;
          default:
            if (t == simdjson::dom::element_type::STRING) {
              std::string_view s = e.get_string().value_unsafe();
              item.off = static_cast<std::int64_t>(strings.size());
              if (kind == Bytes) {
                if (s.size() < 2 || s[0] != '\\' || s[1] != 'x' || s.size() % 2 != 0) {
                  return fail(out, "22P02", "argument %s: element %lld is not bytes written as \"\\\\x\" and hex digits", param,
                              static_cast<long long>(index));
                }
                for (std::size_t k = 2; k < s.size(); k += 2) {
                  int hi = hex_value(s[k]), lo = hex_value(s[k + 1]);
                  if (hi < 0 || lo < 0) {
                    return fail(out, "22P02", "argument %s: element %lld is not bytes written as \"\\\\x\" and hex digits",
                                param, static_cast<long long>(index));
                  }
                  strings.push_back(static_cast<char>(hi * 16 + lo));
                }
              } else {
                if (s.find('\0') != std::string_view::npos) {
                  return fail(out, "22P05", "argument %s: element %lld holds \\u0000, which a text cannot", param,
                              static_cast<long long>(index));
                }
                if (kind == Char && !one_char(s)) {
                  return fail(out, "22023", "a char argument must be text of exactly one character");
                }
                strings.append(s);
              }
              item.len = static_cast<std::int64_t>(strings.size()) - item.off;
              ok = true;
            }
            break;
        }
        if (!ok) {
          return fail(out, "22023", "argument %s: element %lld is %s, not a Keal %s", param, static_cast<long long>(index),
                      json_type_name(t), kind_name(kind));
        }
      }
      items.push_back(item);
      ++index;
    }
    out->count = static_cast<std::int64_t>(items.size());
    out->items = static_cast<keal_json_item*>(std::malloc(sizeof(keal_json_item) * (items.empty() ? 1 : items.size())));
    out->strings = static_cast<char*>(std::malloc(strings.empty() ? 1 : strings.size()));
    if (out->items == nullptr || out->strings == nullptr) {
      std::free(out->items);
      std::free(out->strings);
      return fail(out, "53200", "out of memory reading argument %s", param);
    }
    if (!items.empty()) std::memcpy(out->items, items.data(), sizeof(keal_json_item) * items.size());
    if (!strings.empty()) std::memcpy(out->strings, strings.data(), strings.size());
    out->sqlstate[0] = '\0';
    out->error[0] = '\0';
    return 0;
  } catch (...) {
    return fail(out, "53200", "out of memory reading argument %s", param);
  }
}

extern "C" void keal_json_parsed_free(keal_json_parsed* parsed) {
  std::free(parsed->items);
  std::free(parsed->strings);
  parsed->items = nullptr;
  parsed->strings = nullptr;
}
