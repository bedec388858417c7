sch.reorder_block_iter_var("C", [0, 2, 2])
