sch.transform_bloc:_layout("C", lambda v1, v1, v2: (v2, v1, v0))
k, j, i = sch.get_loops("C")
sch.loop_partition(i, [2, None, 0])
sch.cache_write("C_ax21", 0, "local")
