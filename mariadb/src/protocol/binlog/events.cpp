// The small events: ROTATE, GTID, GTID_LIST, BINLOG_CHECKPOINT, XID,
// XA_PREPARE, ANNOTATE_ROWS, HEARTBEAT, INCIDENT. (QUERY, TABLE_MAP and
// the rows events have files of their own.)
#include <string>

#include "detail.hpp"

namespace sluice::mariadb::binlog::detail {

namespace {

// MariaDB's GTID flags_extra bits.
constexpr std::uint8_t extra_multi_engine = 0x01;
constexpr std::uint8_t extra_commit_alter = 0x04;
constexpr std::uint8_t extra_rollback_alter = 0x08;
// XID_DATA sizes (X/Open): gtrid and bqual are at most 64 bytes each.
constexpr std::uint32_t max_xid_part = 64;

}  // namespace

Rotate parse_rotate(Reader& r, const EventHeader& header) {
    Rotate ev;
    ev.position = r.u64("position");
    ev.next_file = as_text(r.rest());
    if (ev.next_file.empty()) r.fail("next file", "empty binlog file name");
    ev.artificial = (header.flags & header_flag::artificial) != 0 || header.next_position == 0;
    return ev;
}

Gtid parse_gtid(Reader& r, const EventHeader& header) {
    Gtid ev;
    ev.server_id = header.server_id;
    ev.seq_no = r.u64("seq_no");
    ev.domain_id = r.u32("domain id");
    ev.flags = r.u8("flags");
    if (ev.flags & gtid_flag::group_commit_id) ev.commit_id = r.u64("commit id");
    if (ev.flags & (gtid_flag::prepared_xa | gtid_flag::completed_xa)) {
        XaXid xid;
        xid.format_id = r.u32("XA format id");
        std::uint8_t gtrid = r.u8("XA gtrid length");
        std::uint8_t bqual = r.u8("XA bqual length");
        if (gtrid > max_xid_part || bqual > max_xid_part)
            r.fail("XA gtrid length", "XA xid parts of " + std::to_string(gtrid) + " and " +
                                          std::to_string(bqual) + " bytes (at most 64 each)");
        xid.gtrid = as_text(r.bytes(gtrid, "XA gtrid"));
        xid.bqual = as_text(r.bytes(bqual, "XA bqual"));
        ev.xa_xid = xid;
    }
    // Without a commit id the post-header pads to 19 bytes with zeros, so
    // a zero flags_extra here may be padding: both read the same.
    if (!r.at_end()) {
        ev.flags_extra = r.u8("flags_extra");
        if (ev.flags_extra & extra_multi_engine) r.skip(1, "extra engines");
        if (ev.flags_extra & (extra_commit_alter | extra_rollback_alter)) r.skip(8, "start alter seq_no");
    }
    return ev;
}

GtidList parse_gtid_list(Reader& r) {
    GtidList ev;
    std::uint32_t word = r.u32("count");
    std::uint32_t count = word & 0x0fffffff;
    ev.flags = static_cast<std::uint8_t>(word >> 28);
    if (std::uint64_t{count} * 16 > r.remaining())
        r.fail("count", std::to_string(count) + " GTIDs need " + std::to_string(std::uint64_t{count} * 16) +
                            " bytes, " + std::to_string(r.remaining()) + " left");
    ev.gtids.reserve(count);
    for (std::uint32_t i = 0; i < count; ++i) {
        GtidPosition g;
        g.domain_id = r.u32("domain id");
        g.server_id = r.u32("server id");
        g.seq_no = r.u64("seq_no");
        ev.gtids.push_back(g);
    }
    return ev;
}

BinlogCheckpoint parse_binlog_checkpoint(Reader& r) {
    BinlogCheckpoint ev;
    std::uint32_t len = r.u32("file name length");
    ev.file = as_text(r.bytes(len, "file name"));
    return ev;
}

Xid parse_xid(Reader& r) { return Xid{r.u64("xid")}; }

XaPrepare parse_xa_prepare(Reader& r) {
    XaPrepare ev;
    ev.one_phase = r.u8("one phase") != 0;
    ev.xid.format_id = r.u32("format id");
    std::uint32_t gtrid = r.u32("gtrid length");
    std::uint32_t bqual = r.u32("bqual length");
    if (gtrid > max_xid_part || bqual > max_xid_part)
        r.fail("gtrid length", "XA xid parts of " + std::to_string(gtrid) + " and " + std::to_string(bqual) +
                                   " bytes (at most 64 each)");
    ev.xid.gtrid = as_text(r.bytes(gtrid, "gtrid"));
    ev.xid.bqual = as_text(r.bytes(bqual, "bqual"));
    return ev;
}

AnnotateRows parse_annotate_rows(Reader& r) { return AnnotateRows{as_text(r.rest())}; }

Heartbeat parse_heartbeat(Reader& r) { return Heartbeat{as_text(r.rest())}; }

Incident parse_incident(Reader& r) {
    Incident ev;
    ev.code = r.u16("incident code");
    if (!r.at_end()) {
        std::uint8_t len = r.u8("message length");
        ev.message = as_text(r.bytes(len, "message"));
    }
    return ev;
}

}  // namespace sluice::mariadb::binlog::detail
