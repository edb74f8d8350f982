// mariadb_binlog_decode_bench: the binlog decoders alone, in memory (no
// server, no socket): event bytes -> typed row changes, as row changes per
// second per core. Workloads:
//   mixed_batch   a 10-column mixed-type table (INT key, BIGINT, VARCHAR,
//                 DECIMAL(12,2), DATETIME(6), DOUBLE, TEXT, TINYINT
//                 UNSIGNED, TIMESTAMP(6), ENUM), 100 rows per WRITE_ROWS
//                 event (multi-row statements, catch-up batches)
//   mixed_single  the same rows, one transaction per row: GTID, TABLE_MAP,
//                 WRITE_ROWS of one row, XID (autocommit inserts)
//   every_type    the events MariaDB 10.11 wrote for every column type
//                 (mariadb/tests/binlog/fixtures/every_type.hex), replayed
// and modes: `typed` (decode every event, read every row into Values),
// `text` (also every cell's text form, what a formatter pays), `typed
// no-crc` (checksum verification off: what CRC32 costs). Alternatives run
// interleaved, `--runs` rounds, medians reported; the JSON capture has
// every sample. Single thread; CPU time is the thread's own.
//   mariadb_binlog_decode_bench --rows 500000 --runs 7 --out capture.json
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <sys/utsname.h>
#include <unistd.h>
#include <vector>

#include "sluice/mariadb/binlog/binlog.hpp"

namespace {

using namespace sluice::mariadb::binlog;
using sluice::mariadb::protocol::ColumnType;

// ---- event encoding (the bench's own bytes, as MariaDB lays them out) ----

struct Out {
    std::vector<std::uint8_t> b;
    void u8(std::uint8_t v) { b.push_back(v); }
    void u16(std::uint16_t v) {
        u8(static_cast<std::uint8_t>(v));
        u8(static_cast<std::uint8_t>(v >> 8));
    }
    void u24(std::uint32_t v) {
        u16(static_cast<std::uint16_t>(v));
        u8(static_cast<std::uint8_t>(v >> 16));
    }
    void u32(std::uint32_t v) {
        u16(static_cast<std::uint16_t>(v));
        u16(static_cast<std::uint16_t>(v >> 16));
    }
    void u48(std::uint64_t v) {
        u32(static_cast<std::uint32_t>(v));
        u16(static_cast<std::uint16_t>(v >> 32));
    }
    void u64(std::uint64_t v) {
        u32(static_cast<std::uint32_t>(v));
        u32(static_cast<std::uint32_t>(v >> 32));
    }
    void be(std::uint64_t v, int n) {
        for (int i = n - 1; i >= 0; --i) u8(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    void text(std::string_view s) { b.insert(b.end(), s.begin(), s.end()); }
};

std::uint32_t position = 4;

// Header + body + CRC32, log_pos advancing like a real file.
std::vector<std::uint8_t> event(EventType type, const std::vector<std::uint8_t>& body) {
    Out o;
    std::uint32_t len = static_cast<std::uint32_t>(19 + body.size() + 4);
    position += len;
    o.u32(1764576000);
    o.u8(static_cast<std::uint8_t>(type));
    o.u32(1);
    o.u32(len);
    o.u32(position);
    o.u16(0);
    o.b.insert(o.b.end(), body.begin(), body.end());
    uLong crc = ::crc32(0L, o.b.data(), static_cast<uInt>(o.b.size()));
    o.u32(static_cast<std::uint32_t>(crc));
    return o.b;
}

std::vector<std::uint8_t> format_description() {
    Out o;
    o.u16(4);
    std::string v = "10.11.19-MariaDB-log";
    v.resize(50, '\0');
    o.text(v);
    o.u32(1764576000);
    o.u8(19);
    std::vector<std::uint8_t> lengths(171, 0);
    lengths[static_cast<int>(EventType::query) - 1] = 13;
    lengths[static_cast<int>(EventType::table_map) - 1] = 8;
    lengths[static_cast<int>(EventType::write_rows_v1) - 1] = 8;
    lengths[static_cast<int>(EventType::gtid) - 1] = 19;
    o.b.insert(o.b.end(), lengths.begin(), lengths.end());
    o.u8(1);  // CRC32
    return event(EventType::format_description, o.b);
}

constexpr std::uint64_t table_id = 42;

std::vector<std::uint8_t> table_map() {
    Out o;
    o.u48(table_id);
    o.u16(1);
    o.u8(4);
    o.text("shop");
    o.u8(0);
    o.u8(6);
    o.text("orders");
    o.u8(0);
    const std::uint8_t types[] = {3, 8, 15, 246, 18, 5, 252, 1, 17, 254};
    o.u8(10);
    for (auto t : types) o.u8(t);
    Out m;
    m.u16(256);       // VARCHAR(64) utf8mb4
    m.u8(12);         // DECIMAL(12,2)
    m.u8(2);
    m.u8(6);          // DATETIME(6)
    m.u8(8);          // DOUBLE
    m.u8(2);          // TEXT
    m.u8(6);          // TIMESTAMP(6)
    m.u8(0xF7);       // ENUM, 1 byte
    m.u8(1);
    o.u8(static_cast<std::uint8_t>(m.b.size()));
    o.b.insert(o.b.end(), m.b.begin(), m.b.end());
    o.u16(0x03FE);  // all nullable but the key
    // Optional metadata, as binlog_row_metadata=FULL sends it.
    auto block = [&](std::uint8_t type, const Out& v) {
        o.u8(type);
        o.u8(static_cast<std::uint8_t>(v.b.size()));
        o.b.insert(o.b.end(), v.b.begin(), v.b.end());
    };
    Out sign;  // numeric columns: id, amount_cents, price, qty (unsigned), ... in order
    sign.u8(0b00001000);  // id, big, decimal, double, tinyint(unsigned)
    block(1, sign);
    Out cs;
    cs.u8(45);  // utf8mb4_general_ci for every character column
    block(2, cs);
    Out names;
    for (std::string_view n : {"id", "customer", "note", "amount", "created", "score", "body", "qty", "updated", "state"}) {
        names.u8(static_cast<std::uint8_t>(n.size()));
        names.text(n);
    }
    block(4, names);
    Out enums;
    enums.u8(3);
    for (std::string_view n : {"new", "paid", "shipped"}) {
        enums.u8(static_cast<std::uint8_t>(n.size()));
        enums.text(n);
    }
    block(6, enums);
    Out pk;
    pk.u8(0);
    block(8, pk);
    return event(EventType::table_map, o.b);
}

// One row image of the mixed table for row number i.
void row_image(Out& o, std::uint32_t i) {
    bool null_text = i % 7 == 0;
    o.u16(null_text ? 0x40 : 0x00);  // NULL bitmap: body NULL on every 7th row
    o.u32(i);                         // INT
    o.u64(std::uint64_t{i} * 2654435761u);  // BIGINT
    std::string note = "customer-" + std::to_string(i % 1000) + " order note";
    o.u8(static_cast<std::uint8_t>(note.size()));  // VARCHAR(64*4): 2-byte length
    o.u8(0);
    o.text(note);
    // DECIMAL(12,2): 10 integer digits (1 + 9), 2 fraction digits.
    std::uint64_t cents = (std::uint64_t{i} * 1237u) % 100000000000ull;
    std::uint64_t ip = cents / 100;
    o.u8(static_cast<std::uint8_t>(0x80 | (ip / 1000000000u)));
    o.be(ip % 1000000000u, 4);
    o.u8(static_cast<std::uint8_t>(cents % 100));
    // DATETIME(6) 2024-MM-DD hh:mm:ss.ffffff
    std::uint64_t ym = 2024u * 13u + (1u + i % 12u);
    std::uint64_t dt = (ym << 22) | ((1u + i % 28u) << 17) | ((i % 24u) << 12) | ((i % 60u) << 6) | (i % 60u);
    o.be(dt + (std::uint64_t{1} << 39), 5);
    o.be(i % 1000000u, 3);
    double score = i * 0.25;
    std::uint64_t bits;
    std::memcpy(&bits, &score, 8);
    o.u64(bits);
    if (!null_text) {
        std::string body = "a longer text body for row " + std::to_string(i) + ", with some words in it";
        o.u16(static_cast<std::uint16_t>(body.size()));
        o.text(body);
    }
    o.u8(static_cast<std::uint8_t>(i % 200));  // TINYINT UNSIGNED
    o.be(1700000000u + i, 4);                   // TIMESTAMP(6)
    o.be(i % 1000000u, 3);
    o.u8(static_cast<std::uint8_t>(1 + i % 3));  // ENUM
}

std::vector<std::uint8_t> write_rows(std::uint32_t first, std::uint32_t count) {
    Out o;
    o.u48(table_id);
    o.u16(1);
    o.u8(10);
    o.u16(0x03FF);  // present columns: all 10 ((10 + 7) / 8 = 2 bytes)
    for (std::uint32_t i = first; i < first + count; ++i) row_image(o, i);
    return event(EventType::write_rows_v1, o.b);
}

std::vector<std::uint8_t> gtid(std::uint64_t seq) {
    Out o;
    o.u64(seq);
    o.u32(0);
    o.u8(0x0C);
    for (int i = 0; i < 6; ++i) o.u8(0);
    return event(EventType::gtid, o.b);
}

std::vector<std::uint8_t> xid(std::uint64_t x) {
    Out o;
    o.u64(x);
    return event(EventType::xid, o.b);
}

struct Workload {
    std::string name;
    std::vector<std::vector<std::uint8_t>> events;
    std::size_t changes = 0;
};

Workload mixed(std::uint32_t rows, std::uint32_t per_event, const std::string& name) {
    position = 4;
    Workload w{name, {}, 0};
    w.events.push_back(format_description());
    for (std::uint32_t i = 0; i < rows; i += per_event) {
        std::uint32_t n = std::min(per_event, rows - i);
        if (per_event == 1) w.events.push_back(gtid(i + 1));
        w.events.push_back(table_map());
        w.events.push_back(write_rows(i, n));
        if (per_event == 1) w.events.push_back(xid(i + 1));
        w.changes += n;
    }
    return w;
}

Workload every_type(const std::string& fixtures, std::uint32_t rows) {
    std::ifstream in(fixtures + "/every_type.hex");
    if (!in) throw std::runtime_error("no " + fixtures + "/every_type.hex (pass --fixtures)");
    std::stringstream ss;
    ss << in.rdbuf();
    std::vector<std::uint8_t> file;
    std::string hex = ss.str();
    int high = -1;
    for (char c : hex) {
        int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (v < 0) continue;
        if (high < 0) high = v;
        else {
            file.push_back(static_cast<std::uint8_t>(high * 16 + v));
            high = -1;
        }
    }
    std::vector<std::vector<std::uint8_t>> all;
    EventSplitter split(file);
    for (auto e = split.next(); !e.empty(); e = split.next()) all.emplace_back(e.begin(), e.end());
    Workload w{"every_type", {}, 0};
    w.events.push_back(all[0]);  // FORMAT_DESCRIPTION once
    // Count the changes of one pass, then replay the DML events (GTID..XID)
    // until the workload has about `rows` changes.
    std::vector<std::vector<std::uint8_t>> dml;
    std::size_t per_pass = 0;
    {
        Decoder d;
        for (auto& e : all) {
            Event ev = d.decode(e);
            auto t = ev.header.type;
            if (t == EventType::table_map || t == EventType::gtid || t == EventType::xid ||
                t == EventType::annotate_rows || std::holds_alternative<Rows>(ev.body))
                dml.push_back(e);
            if (auto* r = std::get_if<Rows>(&ev.body)) {
                RowReader rr(*r);
                RowChange ch;
                while (rr.next(ch)) ++per_pass;
            }
        }
    }
    while (w.changes < rows) {
        for (auto& e : dml) w.events.push_back(e);
        w.changes += per_pass;
    }
    return w;
}

double thread_cpu_seconds() {
    timespec t{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}
double wall_seconds() {
    timespec t{};
    ::clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

struct Sample {
    double cpu = 0, wall = 0;
    std::size_t changes = 0;
    std::uint64_t checksum = 0;  // of the decoded values: proves the work was done, equal across modes
};

// Decodes the workload; `text` also formats every cell.
Sample run(const Workload& w, bool text, bool verify) {
    Sample s;
    std::string buf;
    buf.reserve(4096);
    double c0 = thread_cpu_seconds(), w0 = wall_seconds();
    Decoder dec(DecoderOptions{verify});
    RowChange ch;
    RowReader reader;  // one for the stream: reset() per event keeps its cells
    for (const auto& bytes : w.events) {
        Event ev = dec.decode(bytes);
        auto* rows = std::get_if<Rows>(&ev.body);
        if (!rows) continue;
        reader.reset(*rows);
        const auto& cols = rows->table->columns;
        while (reader.next(ch)) {
            ++s.changes;
            for (std::size_t i = 0; i < ch.after.size(); ++i) {
                const Cell& c = ch.after[i];
                if (!c.present || c.null) continue;
                if (text) {
                    buf.clear();
                    append_text(buf, c.value, cols[i]);
                    s.checksum += buf.size();
                } else {
                    s.checksum += c.value.index();
                }
            }
        }
    }
    s.cpu = thread_cpu_seconds() - c0;
    s.wall = wall_seconds() - w0;
    return s;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

std::string machine_json() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line, model = "unknown";
    while (std::getline(cpuinfo, line))
        if (line.rfind("model name", 0) == 0) {
            model = line.substr(line.find(':') + 2);
            break;
        }
    utsname u{};
    ::uname(&u);
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    std::ostringstream o;
    o << "{\"cpu\": \"" << model << "\", \"cpus\": " << ::sysconf(_SC_NPROCESSORS_ONLN) << ", \"kernel\": \""
      << u.release << "\", \"host\": \"" << host << "\"}";
    return o.str();
}

}  // namespace

int main(int argc, char** argv) {
    std::uint32_t rows = 500000;
    int runs = 7;
    std::string out = "binlog-decode-capture.json";
    std::string fixtures = SLUICE_BINLOG_FIXTURES;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string a = argv[i];
        if (a == "--rows") rows = static_cast<std::uint32_t>(std::stoul(argv[i + 1]));
        else if (a == "--runs") runs = std::stoi(argv[i + 1]);
        else if (a == "--out") out = argv[i + 1];
        else if (a == "--fixtures") fixtures = argv[i + 1];
        else {
            std::cerr << "usage: mariadb_binlog_decode_bench [--rows N] [--runs N] [--out FILE] [--fixtures DIR]\n";
            return 2;
        }
    }
    std::vector<Workload> workloads = {mixed(rows, 100, "mixed_batch"), mixed(rows, 1, "mixed_single"),
                                       every_type(fixtures, rows / 10)};
    struct Mode {
        std::string name;
        bool text, verify;
    };
    const std::vector<Mode> modes = {{"typed", false, true}, {"text", true, true}, {"typed_no_crc", false, false}};
    // samples[w][m]
    std::vector<std::vector<std::vector<Sample>>> samples(workloads.size(), std::vector<std::vector<Sample>>(modes.size()));
    for (std::size_t w = 0; w < workloads.size(); ++w) run(workloads[w], true, true);  // warm-up
    for (int r = 0; r < runs; ++r)
        for (std::size_t w = 0; w < workloads.size(); ++w)
            for (std::size_t k = 0; k < modes.size(); ++k) {
                // Interleaved, and the mode order rotates per round.
                std::size_t m = (k + static_cast<std::size_t>(r)) % modes.size();
                samples[w][m].push_back(run(workloads[w], modes[m].text, modes[m].verify));
            }
    std::ofstream json(out);
    json << "{\n  \"bench\": \"mariadb_binlog_decode_bench\",\n  \"machine\": " << machine_json()
         << ",\n  \"rows\": " << rows << ",\n  \"runs\": " << runs << ",\n  \"workloads\": [\n";
    std::cout << "workload        mode           changes   median CPU s   changes/s/core (median)\n";
    for (std::size_t w = 0; w < workloads.size(); ++w) {
        json << "    {\"name\": \"" << workloads[w].name << "\", \"events\": " << workloads[w].events.size()
             << ", \"changes\": " << workloads[w].changes << ", \"modes\": [\n";
        double typed_rate = 0;
        for (std::size_t m = 0; m < modes.size(); ++m) {
            std::vector<double> cpu, wall;
            for (auto& s : samples[w][m]) {
                cpu.push_back(s.cpu);
                wall.push_back(s.wall);
            }
            double rate = static_cast<double>(workloads[w].changes) / median(cpu);
            if (m == 0) typed_rate = rate;
            std::printf("%-15s %-14s %8zu   %10.4f   %14.0f  (x%.2f of typed)\n", workloads[w].name.c_str(),
                        modes[m].name.c_str(), workloads[w].changes, median(cpu), rate, rate / typed_rate);
            json << "      {\"mode\": \"" << modes[m].name << "\", \"cpu_seconds\": [";
            for (std::size_t i = 0; i < cpu.size(); ++i) json << (i ? ", " : "") << cpu[i];
            json << "], \"wall_seconds\": [";
            for (std::size_t i = 0; i < wall.size(); ++i) json << (i ? ", " : "") << wall[i];
            json << "], \"checksum\": " << samples[w][m][0].checksum << "}" << (m + 1 < modes.size() ? "," : "")
                 << "\n";
        }
        json << "    ]}" << (w + 1 < workloads.size() ? "," : "") << "\n";
    }
    json << "  ]\n}\n";
    std::cout << "capture: " << out << "\n";
    return 0;
}
