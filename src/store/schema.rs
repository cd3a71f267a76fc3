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
        session_version -> BigInt,
        must_change_password -> Bool,
    }
}

diesel::table! {
    login_throttles (scope, username, address) {
        scope -> Text,
        username -> Text,
        address -> Text,
        window_start_us -> BigInt,
        attempts -> Integer,
        refusal_logged -> Bool,
    }
}

diesel::table! {
    login_known_addresses (username, address) {
        username -> Text,
        address -> Text,
        last_success_us -> BigInt,
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
        closed_until_us -> BigInt,
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

diesel::table! {
    rounds (id) {
        id -> Text,
        table_id -> Text,
        game -> Text,
        number -> BigInt,
        status -> Text,
        config -> Text,
        commitment -> Text,
        server_seed_sealed -> Text,
        client_seed -> Nullable<Text>,
        revealed_server_seed -> Nullable<Text>,
        decisions -> Text,
        result -> Nullable<Text>,
        version -> BigInt,
        created_by -> Text,
        created_at_us -> BigInt,
        updated_at_us -> BigInt,
    }
}

diesel::table! {
    lobo_contests (id) {
        id -> Text,
        table_id -> Text,
        status -> Text,
        config -> Text,
        commitment -> Text,
        server_seed_sealed -> Text,
        client_seed -> Nullable<Text>,
        revealed_server_seed -> Nullable<Text>,
        result -> Nullable<Text>,
        entry_closes_at_us -> BigInt,
        play_closes_at_us -> Nullable<BigInt>,
        version -> BigInt,
        created_by -> Text,
        created_at_us -> BigInt,
        updated_at_us -> BigInt,
    }
}

diesel::table! {
    lobo_contest_entries (contest_id, player_id) {
        contest_id -> Text,
        player_id -> Text,
        entry_number -> Integer,
        client_seed -> Nullable<Text>,
        plays -> Text,
        finished -> Bool,
        stopped -> Bool,
        total -> Nullable<BigInt>,
        entered_at_us -> BigInt,
        updated_at_us -> BigInt,
    }
}

diesel::table! {
    confidence_bets (id) {
        id -> Text,
        round_id -> Text,
        terms -> Text,
        offer_window -> Text,
        offered_by -> Text,
        offerer_side -> Text,
        offered_to -> Nullable<Text>,
        for_stake_minor -> BigInt,
        against_stake_minor -> BigInt,
        status -> Text,
        accepted_by -> Nullable<Text>,
        winner_side -> Nullable<Text>,
        paid_minor -> BigInt,
        commission_minor -> BigInt,
        offered_at_us -> BigInt,
        updated_at_us -> BigInt,
    }
}

diesel::table! {
    fuerza_bets (id) {
        id -> Text,
        round_id -> Text,
        player_id -> Text,
        suit -> Text,
        stake_minor -> BigInt,
        quote_decisions -> Integer,
        quote_samples -> Integer,
        quote_wins -> Integer,
        quote_wins_if_all_pay -> Integer,
        price_hundredths -> Integer,
        status -> Text,
        returned_minor -> BigInt,
        placed_at_us -> BigInt,
        settled_at_us -> Nullable<BigInt>,
    }
}

diesel::table! {
    round_pay_tables (round_id) {
        round_id -> Text,
        pay_table_id -> Text,
    }
}

diesel::table! {
    seats (round_id, suit) {
        round_id -> Text,
        suit -> Text,
        player_id -> Text,
        client_seed -> Nullable<Text>,
        seated_at_us -> BigInt,
    }
}

diesel::table! {
    pay_tables (id) {
        id -> Text,
        name -> Text,
        version -> BigInt,
        fingerprint -> Text,
        spec -> Text,
        certificate -> Text,
        created_by -> Nullable<Text>,
        created_at_us -> BigInt,
    }
}

diesel::table! {
    table_pay_tables (table_id) {
        table_id -> Text,
        pay_table_id -> Text,
        installed_by -> Text,
        installed_at_us -> BigInt,
    }
}

diesel::table! {
    bets (id) {
        id -> Text,
        round_id -> Text,
        table_id -> Text,
        player_id -> Text,
        kind -> Text,
        selection -> Text,
        amount_minor -> BigInt,
        pay_table_id -> Text,
        client_seed -> Nullable<Text>,
        status -> Text,
        returned_minor -> BigInt,
        decided_by -> Nullable<Text>,
        placed_at_us -> BigInt,
        settled_at_us -> Nullable<BigInt>,
    }
}

diesel::table! {
    round_exposures (round_id, player_id) {
        round_id -> Text,
        player_id -> Text,
        staked_minor -> BigInt,
    }
}

diesel::table! {
    round_bet_totals (round_id, kind) {
        round_id -> Text,
        kind -> Text,
        bets -> BigInt,
        staked_minor -> BigInt,
    }
}

diesel::table! {
    event_chain (seq) {
        seq -> BigInt,
        event_id -> Text,
        prev_hash -> Text,
        hash -> Text,
    }
}

diesel::table! {
    checkpoints (seq) {
        seq -> BigInt,
        taken_at_us -> BigInt,
        ledger_seq -> BigInt,
        ledger_hash -> Text,
        events_seq -> BigInt,
        events_hash -> Text,
        key_id -> Text,
        public_key -> Text,
        signature -> Text,
        version -> Integer,
        transfers_root -> Nullable<Text>,
        events_root -> Nullable<Text>,
    }
}

diesel::table! {
    player_limits (player_id, kind, period) {
        player_id -> Text,
        kind -> Text,
        period -> Text,
        amount_minor -> Nullable<BigInt>,
        pending_amount_minor -> Nullable<BigInt>,
        pending_asked_at_us -> Nullable<BigInt>,
        updated_at_us -> BigInt,
    }
}

diesel::table! {
    player_exclusions (id) {
        id -> Text,
        player_id -> Text,
        kind -> Text,
        starts_at_us -> BigInt,
        ends_at_us -> Nullable<BigInt>,
        created_at_us -> BigInt,
    }
}

diesel::table! {
    player_reality_checks (player_id) {
        player_id -> Text,
        interval_minutes -> Nullable<Integer>,
        updated_at_us -> BigInt,
    }
}

diesel::table! {
    player_session_limits (player_id) {
        player_id -> Text,
        minutes -> Nullable<Integer>,
        pending_minutes -> Nullable<Integer>,
        pending_asked_at_us -> Nullable<BigInt>,
        updated_at_us -> BigInt,
    }
}

diesel::table! {
    patron_identities (player_id) {
        player_id -> Text,
        sealed -> Text,
        name_key -> Text,
        document_key -> Text,
        recorded_by -> Text,
        recorded_at_us -> BigInt,
    }
}

diesel::table! {
    cash_transactions (transfer_id) {
        transfer_id -> Text,
        player_id -> Text,
        direction -> Text,
        amount_minor -> BigInt,
        gaming_day -> Text,
        cashier_id -> Text,
        location -> Nullable<Text>,
        at_us -> BigInt,
    }
}

diesel::table! {
    cash_day_totals (player_id, gaming_day, direction) {
        player_id -> Text,
        gaming_day -> Text,
        direction -> Text,
        total_minor -> BigInt,
        largest_minor -> BigInt,
        largest_at_us -> BigInt,
    }
}

diesel::table! {
    currency_transaction_reports (id) {
        id -> Text,
        player_id -> Text,
        gaming_day -> Text,
        created_at_us -> BigInt,
        filed_by -> Nullable<Text>,
        filed_at_us -> Nullable<BigInt>,
        filing_reference -> Nullable<Text>,
        filed_document -> Nullable<Text>,
    }
}

diesel::table! {
    compliance_alerts (id) {
        id -> Text,
        player_id -> Text,
        pattern -> Text,
        gaming_day -> Text,
        raised_at_us -> BigInt,
        evidence -> Text,
        status -> Text,
        reviewed_by -> Nullable<Text>,
        reviewed_at_us -> Nullable<BigInt>,
        review_note -> Nullable<Text>,
    }
}

diesel::table! {
    suspicious_activity_reports (id) {
        id -> Text,
        alert_id -> Text,
        player_id -> Text,
        narrative -> Text,
        created_by -> Text,
        created_at_us -> BigInt,
    }
}

diesel::table! {
    exclusion_lists (id) {
        id -> Text,
        name -> Text,
        sha256 -> Text,
        entries -> Integer,
        imported_by -> Text,
        imported_at_us -> BigInt,
    }
}

diesel::table! {
    exclusion_list_entries (list_id, line) {
        list_id -> Text,
        line -> Integer,
        sealed -> Text,
        name_key -> Text,
        document_key -> Nullable<Text>,
        ends_on -> Nullable<Text>,
    }
}

diesel::table! {
    exclusion_list_matches (id) {
        id -> Text,
        list_id -> Text,
        line -> Integer,
        player_id -> Text,
        basis -> Text,
        found_at_us -> BigInt,
        status -> Text,
        reviewed_by -> Nullable<Text>,
        reviewed_at_us -> Nullable<BigInt>,
        review_note -> Nullable<Text>,
        exclusion_id -> Nullable<Text>,
    }
}

diesel::table! {
    merkle_nodes (tree, level, idx) {
        tree -> Text,
        level -> Integer,
        idx -> BigInt,
        hash -> Text,
    }
}

diesel::table! {
    gaming_day_closes (gaming_day) {
        gaming_day -> Text,
        closed_at_us -> BigInt,
        closed_by -> Text,
        report -> Text,
        report_sha256 -> Text,
        last_seq -> BigInt,
        last_hash -> Text,
    }
}

diesel::table! {
    proposals (id) {
        id -> Text,
        kind -> Text,
        subject -> Nullable<Text>,
        request -> Text,
        proposed_by -> Text,
        proposed_at_us -> BigInt,
        expires_at_us -> BigInt,
        status -> Text,
        decided_by -> Nullable<Text>,
        decided_at_us -> Nullable<BigInt>,
        result -> Nullable<Text>,
        subject_version -> Nullable<Text>,
        password_hash -> Nullable<Text>,
    }
}

diesel::table! {
    floor_meter_mark (id) {
        id -> Integer,
        through_seq -> BigInt,
    }
}

diesel::table! {
    floor_money_minutes (table_id, minute_us, through_seq) {
        table_id -> Text,
        minute_us -> BigInt,
        through_seq -> BigInt,
        transfers -> BigInt,
        drop_minor -> BigInt,
        win_minor -> BigInt,
        fees_minor -> BigInt,
    }
}

diesel::table! {
    floor_bet_minutes (table_id, minute_us, through_seq, pay_table_id, bet) {
        table_id -> Text,
        minute_us -> BigInt,
        through_seq -> BigInt,
        pay_table_id -> Text,
        bet -> Text,
        bets -> BigInt,
        rounds -> BigInt,
        staked_minor -> BigInt,
        returned_minor -> BigInt,
        staked_sq -> Double,
        round_staked_sq -> Double,
        round_cross -> Double,
        round_returned_sq -> Double,
    }
}

diesel::table! {
    peg_leg_rounds (id) {
        id -> Text,
        table_id -> Text,
        number -> BigInt,
        status -> Text,
        config -> Text,
        commitment -> Text,
        server_seed_sealed -> Text,
        client_seed -> Nullable<Text>,
        revealed_server_seed -> Nullable<Text>,
        cards_dealt -> Integer,
        window_closes_at_us -> Nullable<BigInt>,
        final_count -> Nullable<Integer>,
        version -> BigInt,
        created_by -> Text,
        created_at_us -> BigInt,
        updated_at_us -> BigInt,
    }
}

diesel::table! {
    peg_leg_client_seeds (round_id, player_id) {
        round_id -> Text,
        player_id -> Text,
        client_seed -> Text,
        submitted_at_us -> BigInt,
    }
}

diesel::table! {
    peg_leg_quotes (id) {
        id -> Text,
        round_id -> Text,
        cards_dealt -> Integer,
        quote -> Text,
        distribution -> Text,
        simulation_seed -> Nullable<Text>,
        created_at_us -> BigInt,
    }
}

diesel::table! {
    peg_leg_bets (id) {
        id -> Text,
        round_id -> Text,
        player_id -> Text,
        count -> Integer,
        stake_minor -> BigInt,
        multiplier_cents -> BigInt,
        quote_id -> Text,
        status -> Text,
        surrender_quote_id -> Nullable<Text>,
        returned_minor -> Nullable<BigInt>,
        placed_at_us -> BigInt,
        closed_at_us -> Nullable<BigInt>,
    }
}

diesel::joinable!(event_chain -> significant_events (event_id));

diesel::allow_tables_to_appear_in_same_query!(
    users,
    login_throttles,
    login_known_addresses,
    significant_events,
    accounts,
    ledger_head,
    transfers,
    idempotency_keys,
    casino_tables,
    table_dealers,
    settings,
    rounds,
    seats,
    pay_tables,
    table_pay_tables,
    bets,
    round_exposures,
    round_bet_totals,
    event_chain,
    checkpoints,
    merkle_nodes,
    player_limits,
    player_exclusions,
    player_reality_checks,
    player_session_limits,
    patron_identities,
    cash_transactions,
    cash_day_totals,
    currency_transaction_reports,
    compliance_alerts,
    suspicious_activity_reports,
    exclusion_lists,
    exclusion_list_entries,
    exclusion_list_matches,
    gaming_day_closes,
    proposals,
    floor_meter_mark,
    floor_money_minutes,
    floor_bet_minutes,
    lobo_contests,
    lobo_contest_entries,
    peg_leg_rounds,
    peg_leg_client_seeds,
    peg_leg_quotes,
    peg_leg_bets,
    confidence_bets,
    fuerza_bets,
);
