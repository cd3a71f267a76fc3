// Diesel's view of the tables in migrations/. Kept by hand (no database is
// needed to build); a test checks it against a freshly migrated database.

diesel::table! {
    users (id) {
        id -> Text,
        username -> Text,
        display_name -> Text,
        role -> Text,
        password_hash -> Text,
        active -> Bool,
        created_at_us -> BigInt,
    }
}

diesel::table! {
    login_failures (id) {
        id -> Text,
        username -> Text,
        at_us -> BigInt,
    }
}

diesel::table! {
    significant_events (id) {
        id -> Text,
        at_us -> BigInt,
        kind -> Text,
        actor_id -> Nullable<Text>,
        subject -> Nullable<Text>,
        details -> Text,
    }
}

diesel::table! {
    accounts (id) {
        id -> Text,
        kind -> Text,
        owner_id -> Nullable<Text>,
        balance_minor -> BigInt,
        may_go_negative -> Bool,
        created_at_us -> BigInt,
    }
}

diesel::table! {
    ledger_head (id) {
        id -> Integer,
        seq -> BigInt,
        hash -> Text,
    }
}

diesel::table! {
    transfers (seq) {
        seq -> BigInt,
        id -> Text,
        debit_account -> Text,
        credit_account -> Text,
        amount_minor -> BigInt,
        kind -> Text,
        user_id -> Nullable<Text>,
        table_id -> Nullable<Text>,
        round_id -> Nullable<Text>,
        bet_id -> Nullable<Text>,
        idempotency_key -> Nullable<Text>,
        memo -> Nullable<Text>,
        created_at_us -> BigInt,
        prev_hash -> Text,
        hash -> Text,
    }
}

diesel::table! {
    idempotency_keys (user_id, idem_key) {
        user_id -> Text,
        idem_key -> Text,
        request_hash -> Text,
        status_code -> Integer,
        response_body -> Text,
        created_at_us -> BigInt,
    }
}

diesel::table! {
    casino_tables (id) {
        id -> Text,
        name -> Text,
        game -> Text,
        status -> Text,
        config -> Text,
        created_at_us -> BigInt,
    }
}

diesel::table! {
    table_dealers (table_id, dealer_id) {
        table_id -> Text,
        dealer_id -> Text,
    }
}

diesel::table! {
    settings (name) {
        name -> Text,
        value -> Text,
    }
}

diesel::allow_tables_to_appear_in_same_query!(
    users,
    login_failures,
    significant_events,
    accounts,
    ledger_head,
    transfers,
    idempotency_keys,
    casino_tables,
    table_dealers,
    settings,
);
