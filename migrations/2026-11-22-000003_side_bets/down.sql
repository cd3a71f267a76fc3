DROP TABLE bets;
DROP TABLE table_pay_tables;
DROP TABLE pay_tables;
