-- The move ledger of the outbox path: every unit's home as this region last saw it, and each move of a unit between
-- homes with how far this region had applied the old home's changes of that unit when it saw the move. A change of
-- that unit from the old home beyond that position, delivered after the move, was not shipped before the unit left:
-- the new home reconciles it instead of applying it over its own data (see io.unitas.data.outbox.MoveLog).
-- Portable SQL: PostgreSQL and H2 run it unchanged.

-- The home last seen per unit: the starting point of its moves, and the row that serializes recording them.
CREATE TABLE unitas_unit_homes (
    unit    VARCHAR(200) PRIMARY KEY,
    home    VARCHAR(63) NOT NULL,
    seen_at BIGINT NOT NULL
);

-- Each move seen, numbered per unit from 1; shipped_through is this region's applied position of (from_region, unit).
CREATE TABLE unitas_unit_moves (
    unit            VARCHAR(200) NOT NULL,
    move_no         INTEGER NOT NULL,
    from_region     VARCHAR(63) NOT NULL,
    to_region       VARCHAR(63) NOT NULL,
    moved_at        BIGINT NOT NULL,
    shipped_through BIGINT NOT NULL,
    PRIMARY KEY (unit, move_no)
);
