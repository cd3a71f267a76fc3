DROP TABLE round_pay_tables;
