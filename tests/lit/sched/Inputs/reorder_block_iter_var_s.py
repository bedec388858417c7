sch.reorder_block_iter_var("C", [2, 0, 1])
print(sch.trace)
