sch.transform_block_layout("C", lambda v0, v1, v2: (v2, v1, v0))
k, j, i = sch.get_loops("C")
sch.loop_partition(i, [1, None, 1])
sch.reindex("C_ax21", ("write", 0))
