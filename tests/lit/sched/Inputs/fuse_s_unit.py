i, j, k = sch.get_loops("C")
u = sch.add_unit_loop("C")
sch.fuse(i, j, preserve_unit_iters=False)
sch.fuse(k, u, preserve_unit_iters=False)
