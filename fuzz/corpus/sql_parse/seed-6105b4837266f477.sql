SELECT /* inline comment */ a -- trailing comment
FROM t /* nested /* comment */ still comment */ WHERE a = 1