#include "ddl_tables.hpp"

#include <cctype>

namespace sluice::mariadb::cdc::detail {

namespace {

// A token: an identifier (bare or `quoted`, quoted ones marked), or one
// punctuation character.
struct Token {
    std::string text;
    bool quoted = false;
};

std::vector<Token> tokens_of(std::string_view sql) {
    std::vector<Token> out;
    std::size_t i = 0;
    while (i < sql.size()) {
        const char c = sql[i];
        if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
        } else if (c == '/' && i + 1 < sql.size() && sql[i + 1] == '*') {  // /* ... */ (the server's own remarks)
            const std::size_t end = sql.find("*/", i + 2);
            i = end == std::string_view::npos ? sql.size() : end + 2;
        } else if (c == '#' || (c == '-' && i + 2 < sql.size() && sql[i + 1] == '-' && std::isspace(static_cast<unsigned char>(sql[i + 2])))) {
            const std::size_t end = sql.find('\n', i);
            i = end == std::string_view::npos ? sql.size() : end + 1;
        } else if (c == '`') {
            Token t;
            t.quoted = true;
            for (++i; i < sql.size(); ++i) {
                if (sql[i] == '`') {
                    if (i + 1 < sql.size() && sql[i + 1] == '`') {  // `` is a backquote inside
                        t.text += '`';
                        ++i;
                        continue;
                    }
                    break;
                }
                t.text += sql[i];
            }
            ++i;
            out.push_back(std::move(t));
        } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
                   static_cast<unsigned char>(c) >= 0x80) {
            Token t;
            while (i < sql.size() && (std::isalnum(static_cast<unsigned char>(sql[i])) || sql[i] == '_' ||
                                      sql[i] == '$' || static_cast<unsigned char>(sql[i]) >= 0x80))
                t.text += sql[i++];
            out.push_back(std::move(t));
        } else {
            out.push_back(Token{std::string(1, c), false});
            ++i;
        }
    }
    return out;
}

class Reader {
public:
    explicit Reader(std::vector<Token> t) : t_(std::move(t)) {}

    // The next token is the keyword `word` (case-insensitive, not quoted): consumed.
    bool keyword(std::string_view word) {
        if (at_ >= t_.size() || t_[at_].quoted || t_[at_].text.size() != word.size()) return false;
        for (std::size_t i = 0; i < word.size(); ++i)
            if (std::toupper(static_cast<unsigned char>(t_[at_].text[i])) != word[i]) return false;
        ++at_;
        return true;
    }
    bool punct(char c) {
        if (at_ >= t_.size() || t_[at_].quoted || t_[at_].text != std::string(1, c)) return false;
        ++at_;
        return true;
    }
    // [db.]table; nullopt when the next tokens are no name.
    std::optional<DdlTable> name() {
        std::optional<std::string> first = identifier();
        if (!first) return std::nullopt;
        if (punct('.')) {
            std::optional<std::string> second = identifier();
            if (!second) return std::nullopt;
            return DdlTable{*first, *second};
        }
        return DdlTable{"", *first};
    }
    // Skips tokens up to and past the keyword `word`; false if it never comes.
    bool skip_past(std::string_view word) {
        while (at_ < t_.size()) {
            if (keyword(word)) return true;
            ++at_;
        }
        return false;
    }
    bool done() const { return at_ >= t_.size(); }
    void skip() { ++at_; }

private:
    std::optional<std::string> identifier() {
        if (at_ >= t_.size()) return std::nullopt;
        const Token& t = t_[at_];
        const auto first = static_cast<unsigned char>(t.text.empty() ? ' ' : t.text[0]);
        if (!t.quoted && !(std::isalnum(first) || first == '_' || first == '$' || first >= 0x80)) return std::nullopt;
        ++at_;
        return t.text;
    }
    std::vector<Token> t_;
    std::size_t at_ = 0;
};

// NAME [, NAME]...
std::optional<std::vector<DdlTable>> name_list(Reader& r) {
    std::vector<DdlTable> out;
    do {
        auto n = r.name();
        if (!n) return std::nullopt;
        out.push_back(std::move(*n));
    } while (r.punct(','));
    return out;
}

}  // namespace

std::optional<std::vector<DdlTable>> ddl_tables(std::string_view sql) {
    Reader r(tokens_of(sql));
    if (r.keyword("CREATE")) {
        if (r.keyword("OR") && !r.keyword("REPLACE")) return std::nullopt;
        r.keyword("TEMPORARY");
        if (r.keyword("TABLE")) {
            if (r.keyword("IF") && !(r.keyword("NOT") && r.keyword("EXISTS"))) return std::nullopt;
            auto n = r.name();
            if (!n) return std::nullopt;
            return std::vector<DdlTable>{*n};
        }
        // CREATE [UNIQUE|FULLTEXT|SPATIAL] INDEX ... ON NAME
        if (!r.keyword("UNIQUE") && !r.keyword("FULLTEXT")) r.keyword("SPATIAL");
        if (r.keyword("INDEX") && r.skip_past("ON")) {
            auto n = r.name();
            if (!n) return std::nullopt;
            return std::vector<DdlTable>{*n};
        }
        return std::nullopt;
    }
    if (r.keyword("ALTER")) {
        r.keyword("ONLINE");
        r.keyword("IGNORE");
        if (!r.keyword("TABLE")) return std::nullopt;
        if (r.keyword("IF") && !r.keyword("EXISTS")) return std::nullopt;
        auto n = r.name();
        if (!n) return std::nullopt;
        std::vector<DdlTable> out{*n};
        // ALTER TABLE a ... RENAME [TO|AS] b: b is about to be a's name.
        while (!r.done()) {
            if (r.keyword("RENAME")) {
                if (r.keyword("COLUMN") || r.keyword("INDEX") || r.keyword("KEY")) continue;
                if (!r.keyword("TO")) r.keyword("AS");
                auto renamed = r.name();
                if (!renamed) return std::nullopt;
                out.push_back(std::move(*renamed));
            } else {
                r.skip();
            }
        }
        return out;
    }
    if (r.keyword("DROP")) {
        r.keyword("TEMPORARY");
        if (r.keyword("TABLE")) {
            if (r.keyword("IF") && !r.keyword("EXISTS")) return std::nullopt;
            return name_list(r);
        }
        if (r.keyword("INDEX") && r.skip_past("ON")) {
            auto n = r.name();
            if (!n) return std::nullopt;
            return std::vector<DdlTable>{*n};
        }
        return std::nullopt;
    }
    if (r.keyword("RENAME")) {
        if (!r.keyword("TABLE")) return std::nullopt;
        std::vector<DdlTable> out;
        do {
            auto from = r.name();
            if (!from || !r.keyword("TO")) return std::nullopt;
            auto to = r.name();
            if (!to) return std::nullopt;
            out.push_back(std::move(*from));
            out.push_back(std::move(*to));
        } while (r.punct(','));
        return out;
    }
    if (r.keyword("TRUNCATE")) {
        r.keyword("TABLE");
        auto n = r.name();
        if (!n) return std::nullopt;
        return std::vector<DdlTable>{*n};
    }
    return std::nullopt;
}

}  // namespace sluice::mariadb::cdc::detail
