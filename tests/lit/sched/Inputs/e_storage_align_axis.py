sch.storage_align("C", 0, 2, 16, 1)
