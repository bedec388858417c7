sch.cache_index(sch.get_block("resize"), "global", 2)
