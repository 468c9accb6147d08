-- A syntax error on line 3.

local broken = = 1
