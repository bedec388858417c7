sch.transform_block_layout("C", lambda i, j, k: (i, j * 16 + k))
