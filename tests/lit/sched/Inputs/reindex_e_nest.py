i, j = sch.get_loops("C")
sch.compute_at(sch.get_block("B"), i)
sch.reindex("C", "B")
