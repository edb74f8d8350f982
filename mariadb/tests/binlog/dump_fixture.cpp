// Prints every event and row of a fixture: how the expectations in the
// tests were read off (and a tool to look at new fixtures).
//   mariadb_binlog_dump_fixture every_type
#include <iostream>

#include "fixture.hpp"

using namespace sluice::mariadb::binlog;

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: mariadb_binlog_dump_fixture NAME\n";
        return 2;
    }
    auto file = test::load_fixture(argv[1]);
    Decoder dec;
    dec.set_position("fixture", 4);
    for (auto& bytes : test::split_events(file)) {
        Event ev = dec.decode(bytes);
        std::cout << to_string(ev.header.type) << " len=" << ev.header.event_length
                  << " next=" << ev.header.next_position << "\n";
        if (auto* q = std::get_if<Query>(&ev.body)) std::cout << "  sql: " << q->sql << "\n";
        if (auto* g = std::get_if<Gtid>(&ev.body))
            std::cout << "  gtid " << g->domain_id << "-" << g->server_id << "-" << g->seq_no
                      << " flags=" << int(g->flags) << "\n";
        if (auto* t = std::get_if<TableMapEvent>(&ev.body)) {
            std::cout << "  table " << t->table->db << "." << t->table->table << " id " << t->table->table_id << "\n";
            for (auto& c : t->table->columns)
                std::cout << "    " << c.name << " type=" << int(c.type) << " meta=" << c.metadata
                          << " unsigned=" << c.is_unsigned << " cs=" << c.charset << "\n";
        }
        if (auto* rows = std::get_if<Rows>(&ev.body)) {
            RowReader rr(*rows);
            RowChange ch;
            while (rr.next(ch)) {
                std::cout << "  " << to_string(rows->kind) << "\n";
                for (auto* img : {&ch.before, &ch.after}) {
                    if (img->empty()) continue;
                    std::cout << (img == &ch.before ? "   before:" : "   after:");
                    for (std::size_t i = 0; i < img->size(); ++i) {
                        std::string t = test::cell_text((*img)[i], rows->table->columns[i]);
                        std::cout << " " << rows->table->columns[i].name << "=" << t;
                    }
                    std::cout << "\n";
                }
            }
        }
    }
}
