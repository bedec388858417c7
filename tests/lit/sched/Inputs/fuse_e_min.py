(i,) = sch.get_loops("offset")
u = sch.add_unit_loop("offset")
sch.fuse(i, u)
