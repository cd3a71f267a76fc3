DROP TRIGGER merkle_nodes_insert_only ON merkle_nodes;
