i, j = sch.get_loops("B")
u = sch.add_unit_loop(j)
sch.compute_inline("B")
