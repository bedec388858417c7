i, j0, j1 = sch.get_loops("O")
sch.compute_at(sch.get_block("T"), j0)
sch.compute_at(sch.get_block("R"), i)
