#include "sqlite_session.hpp"

#include <unistd.h>

#include <filesystem>
#include <map>
#include <stdexcept>

#include "keal_database.hpp"

#ifndef KEAL_SERVERS_WORK_DIR
#error "KEAL_SERVERS_WORK_DIR must name a scratch folder (set by CMake)"
#endif

namespace keal::servers {

std::string sqlite_extension(const std::string& file_name) {
    static std::map<std::string, std::string> built;
    if (auto it = built.find(file_name); it != built.end()) return it->second;
    const std::string dir = std::string(KEAL_SERVERS_WORK_DIR) + "/" + std::to_string(getpid());
    std::filesystem::create_directories(dir);
    const std::string so = dir + "/" + std::filesystem::path(file_name).stem().string() + "-sqlite.so";
    const e2e::CommandResult r = e2e::run_keal({"build", e2e::program_path(file_name), "--target", "sqlite", "-o", so});
    if (r.exit_code != 0) throw std::runtime_error("keal build --target sqlite " + file_name + " failed:\n" + r.output);
    built[file_name] = so;
    return so;
}

SqliteSession::SqliteSession(const std::string& extension_path) {
    if (sqlite3_open(":memory:", &db_) != SQLITE_OK) throw std::runtime_error("sqlite3_open failed");
    sqlite3_db_config(db_, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, nullptr);
    char* error = nullptr;
    if (sqlite3_load_extension(db_, extension_path.c_str(), nullptr, &error) != SQLITE_OK) {
        std::string message = error != nullptr ? error : "unknown error";
        sqlite3_free(error);
        throw std::runtime_error("loading " + extension_path + ": " + message);
    }
}

SqliteSession::~SqliteSession() { sqlite3_close(db_); }

void SqliteSession::exec(const std::string& sql) {
    char* error = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
        std::string message = error != nullptr ? error : "unknown error";
        sqlite3_free(error);
        throw std::runtime_error(sql + ": " + message);
    }
}

namespace {

std::string render_column(sqlite3_stmt* st, int i, Kind kind) {
    if (sqlite3_column_type(st, i) == SQLITE_NULL) return "NULL";
    switch (kind) {
        case Kind::Int: return std::to_string(sqlite3_column_int64(st, i));
        case Kind::Float: return render_float(sqlite3_column_double(st, i));
        case Kind::Bool: return sqlite3_column_int64(st, i) != 0 ? "true" : "false";
        case Kind::Text:
        case Kind::Json: break;
    }
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st, i));
    return std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(st, i)));
}

Outcome step_and_render(sqlite3* db, sqlite3_stmt* st, Kind result, const std::string& source_file, int* code) {
    Outcome out;
    const int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        if (code != nullptr) *code = sqlite3_errcode(db);
        out.rendered = render_error(sqlite3_errmsg(db), source_file);
        sqlite3_finalize(st);
        return out;
    }
    out.rendered = render_column(st, 0, result);
    sqlite3_finalize(st);
    return out;
}

}  // namespace

Outcome SqliteSession::run(const Call& call, const std::string& source_file) {
    std::string sql = "SELECT " + call.function + "(";
    for (std::size_t i = 0; i < call.args.size(); ++i) sql += i ? ", ?" : "?";
    sql += ")";
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
        return Outcome{render_error(sqlite3_errmsg(db_), source_file), ""};
    for (std::size_t i = 0; i < call.args.size(); ++i) {
        const Arg& a = call.args[i];
        const int at = static_cast<int>(i) + 1;
        if (a.is_null) {
            sqlite3_bind_null(st, at);
            continue;
        }
        switch (a.kind) {
            case Kind::Int: sqlite3_bind_int64(st, at, a.i); break;
            case Kind::Float: sqlite3_bind_double(st, at, a.f); break;
            case Kind::Bool: sqlite3_bind_int(st, at, a.b ? 1 : 0); break;
            case Kind::Text:
            case Kind::Json:
                sqlite3_bind_text(st, at, a.t.data(), static_cast<int>(a.t.size()), SQLITE_TRANSIENT);
                break;
        }
    }
    return step_and_render(db_, st, call.result, source_file, nullptr);
}

Outcome SqliteSession::query(const std::string& sql, Kind result, const std::string& source_file, int* code) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
        if (code != nullptr) *code = sqlite3_errcode(db_);
        return Outcome{render_error(sqlite3_errmsg(db_), source_file), ""};
    }
    return step_and_render(db_, st, result, source_file, code);
}

Outcome SqliteSession::rows(const std::string& sql, const std::vector<Kind>& columns, const std::string& source_file,
                            int* code) {
    sqlite3_stmt* st = nullptr;
    auto failed = [&] {
        if (code != nullptr) *code = sqlite3_errcode(db_);
        Outcome out{render_error(sqlite3_errmsg(db_), source_file), ""};
        sqlite3_finalize(st);
        return out;
    };
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) return failed();
    std::vector<std::vector<std::string>> rendered;
    int rc = SQLITE_ROW;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        std::vector<std::string> values;
        for (int i = 0; i < sqlite3_column_count(st); ++i) {
            const auto at = static_cast<std::size_t>(i);
            values.push_back(render_column(st, i, at < columns.size() ? columns[at] : Kind::Text));
        }
        rendered.push_back(std::move(values));
    }
    if (rc != SQLITE_DONE) return failed();
    sqlite3_finalize(st);
    return Outcome{render_rows(rendered), ""};
}

}  // namespace keal::servers
