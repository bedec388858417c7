i, j = sch.get_loops("B")
sch.reorder(j, i)
sch.transform_block_layout("B", lambda i, j: (j, i))
