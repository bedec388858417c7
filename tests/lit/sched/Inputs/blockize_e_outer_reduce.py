sch.blockize([sch.get_block("B")])
