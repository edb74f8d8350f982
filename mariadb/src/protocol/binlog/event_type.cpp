#include "sluice/mariadb/binlog/event_type.hpp"

namespace sluice::mariadb::binlog {

std::string_view to_string(EventType type) noexcept {
    switch (type) {
        case EventType::unknown: return "UNKNOWN_EVENT";
        case EventType::start_v3: return "START_EVENT_V3";
        case EventType::query: return "QUERY_EVENT";
        case EventType::stop: return "STOP_EVENT";
        case EventType::rotate: return "ROTATE_EVENT";
        case EventType::intvar: return "INTVAR_EVENT";
        case EventType::load: return "LOAD_EVENT";
        case EventType::slave: return "SLAVE_EVENT";
        case EventType::create_file: return "CREATE_FILE_EVENT";
        case EventType::append_block: return "APPEND_BLOCK_EVENT";
        case EventType::exec_load: return "EXEC_LOAD_EVENT";
        case EventType::delete_file: return "DELETE_FILE_EVENT";
        case EventType::new_load: return "NEW_LOAD_EVENT";
        case EventType::rand: return "RAND_EVENT";
        case EventType::user_var: return "USER_VAR_EVENT";
        case EventType::format_description: return "FORMAT_DESCRIPTION_EVENT";
        case EventType::xid: return "XID_EVENT";
        case EventType::begin_load_query: return "BEGIN_LOAD_QUERY_EVENT";
        case EventType::execute_load_query: return "EXECUTE_LOAD_QUERY_EVENT";
        case EventType::table_map: return "TABLE_MAP_EVENT";
        case EventType::pre_ga_write_rows: return "PRE_GA_WRITE_ROWS_EVENT";
        case EventType::pre_ga_update_rows: return "PRE_GA_UPDATE_ROWS_EVENT";
        case EventType::pre_ga_delete_rows: return "PRE_GA_DELETE_ROWS_EVENT";
        case EventType::write_rows_v1: return "WRITE_ROWS_EVENT_V1";
        case EventType::update_rows_v1: return "UPDATE_ROWS_EVENT_V1";
        case EventType::delete_rows_v1: return "DELETE_ROWS_EVENT_V1";
        case EventType::incident: return "INCIDENT_EVENT";
        case EventType::heartbeat: return "HEARTBEAT_LOG_EVENT";
        case EventType::ignorable: return "IGNORABLE_LOG_EVENT";
        case EventType::rows_query: return "ROWS_QUERY_LOG_EVENT";
        case EventType::write_rows_v2: return "WRITE_ROWS_EVENT";
        case EventType::update_rows_v2: return "UPDATE_ROWS_EVENT";
        case EventType::delete_rows_v2: return "DELETE_ROWS_EVENT";
        case EventType::mysql_gtid: return "GTID_LOG_EVENT(MySQL)";
        case EventType::mysql_anonymous_gtid: return "ANONYMOUS_GTID_LOG_EVENT";
        case EventType::mysql_previous_gtids: return "PREVIOUS_GTIDS_LOG_EVENT";
        case EventType::mysql_transaction_context: return "TRANSACTION_CONTEXT_EVENT";
        case EventType::mysql_view_change: return "VIEW_CHANGE_EVENT";
        case EventType::mysql_xa_prepare: return "XA_PREPARE_LOG_EVENT";
        case EventType::mysql_partial_update_rows: return "PARTIAL_UPDATE_ROWS_EVENT";
        case EventType::annotate_rows: return "ANNOTATE_ROWS_EVENT";
        case EventType::binlog_checkpoint: return "BINLOG_CHECKPOINT_EVENT";
        case EventType::gtid: return "GTID_EVENT";
        case EventType::gtid_list: return "GTID_LIST_EVENT";
        case EventType::start_encryption: return "START_ENCRYPTION_EVENT";
        case EventType::query_compressed: return "QUERY_COMPRESSED_EVENT";
        case EventType::write_rows_compressed_v1: return "WRITE_ROWS_COMPRESSED_EVENT_V1";
        case EventType::update_rows_compressed_v1: return "UPDATE_ROWS_COMPRESSED_EVENT_V1";
        case EventType::delete_rows_compressed_v1: return "DELETE_ROWS_COMPRESSED_EVENT_V1";
        case EventType::write_rows_compressed: return "WRITE_ROWS_COMPRESSED_EVENT";
        case EventType::update_rows_compressed: return "UPDATE_ROWS_COMPRESSED_EVENT";
        case EventType::delete_rows_compressed: return "DELETE_ROWS_COMPRESSED_EVENT";
    }
    return "UNKNOWN_EVENT";
}

}  // namespace sluice::mariadb::binlog
