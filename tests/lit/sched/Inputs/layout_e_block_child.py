sch.compute_at("B", sch.get_loops("C")[0])
sch.transform_block_layout("C", lambda i, j: (j, i))
