DROP INDEX login_known_addresses_by_time;
DROP TABLE login_known_addresses;
