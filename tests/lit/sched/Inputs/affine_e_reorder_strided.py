i, l = sch.get_loops(sch.get_block("B", func_name="strided"))
sch.reorder(l, i)
