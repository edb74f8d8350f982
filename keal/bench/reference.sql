-- The benchmark's non-Keal contenders and its data, run once per benchmark
-- database by keal_bench in one transaction (the driver then runs VACUUM
-- ANALYZE words, and creates the C functions: it knows where their .so is).

-- Collatz steps, the way one writes it in PL/pgSQL.
CREATE FUNCTION steps_plpgsql(n bigint) RETURNS bigint
LANGUAGE plpgsql STRICT IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  x bigint := n;
  s bigint := 0;
BEGIN
  WHILE x <> 1 LOOP
    IF x % 2 = 0 THEN x := x / 2; ELSE x := 3 * x + 1; END IF;
    s := s + 1;
  END LOOP;
  RETURN s;
END $$;

-- Vowel count, one character at a time, the way one writes it in PL/pgSQL.
CREATE FUNCTION vowels_plpgsql(s text) RETURNS bigint
LANGUAGE plpgsql STRICT IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  n bigint := 0;
BEGIN
  FOR i IN 1 .. length(s) LOOP
    IF position(substr(s, i, 1) IN 'aeiouAEIOU') > 0 THEN n := n + 1; END IF;
  END LOOP;
  RETURN n;
END $$;

-- A query loop, the way one writes it in PL/pgSQL (a scalar loop variable,
-- its fastest form).
CREATE FUNCTION loop_sum_plpgsql() RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
DECLARE
  t bigint := 0;
  i bigint;
BEGIN
  FOR i IN SELECT id FROM words LOOP
    t := t + i;
  END LOOP;
  RETURN t;
END $$;

-- 300,000 rows of 40 characters, the same every run: two md5 digests of the
-- row number, hex digits mapped onto letters (5 of 16 are vowels) and a space.
CREATE TABLE words AS
  SELECT n AS id,
         translate(substr(md5(n::text) || md5((-n)::text), 1, 40),
                   '0123456789abcdef', 'aEiOu bcdfghkmnr') AS s
  FROM generate_series(1, 300000) AS n;
