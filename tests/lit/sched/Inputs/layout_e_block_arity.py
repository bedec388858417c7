sch.transform_block_layout("C", lambda i, j: (i * 16 + j,))
