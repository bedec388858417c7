i, j, k = sch.get_loops("C")
u = sch.add_unit_loop(k)
sch.decompose_reduction("C", j)
