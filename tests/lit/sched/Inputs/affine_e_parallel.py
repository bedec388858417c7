i, k = sch.get_loops(sch.get_block("B", func_name="rowsum"))
sch.parallel(i)
