i, j = sch.get_loops(sch.get_block("B", func_name="pred"))
sch.reorder(j, i)
