sch.blockize([sch.get_block("C"), sch.get_block("B")])
