sch.transform_block_layout("B", lambda i, j: (i // 2, j))
