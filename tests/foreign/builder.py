"""Build listings databases shaped like data_collector's, unlike ours, on the embedded server.

Each variant is made from the ~3000 rows of the test listings database (read with psycopg,
written with other types and spellings) plus hand-made hostile rows with known ids (`Hostile`).
Nothing here runs against a real database: it creates and drops its own databases and role.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from urllib.parse import quote

import psycopg
from psycopg import sql

from demo import embedded as embedded_db
from demo import schema

SOURCE_DB = "vmk_data"
READER = "foreign_reader"
CHECKSUM_SQL = "SELECT md5(string_agg(md5(t::text), '' ORDER BY id)) FROM property_listings t"
DIM = 768


@dataclass(frozen=True)
class Variant:
    name: str
    dbname: str
    ukrainian: bool  # a working `ukrainian` configuration (hunspell under another name)
    hnsw: bool


COLLECTOR = Variant("collector", "foreign_collector", ukrainian=True, hnsw=True)
BARE = Variant("bare", "foreign_bare", ukrainian=False, hnsw=False)
VARIANTS = {variant.name: variant for variant in (COLLECTOR, BARE)}

# Index names unlike ours (ix_property_listings_*).
HNSW_INDEX = "listings_embedding_cos_idx"
GIN_INDEX = "listings_fts_idx"


class Hostile:
    """Ids of the hand-made rows (the copied rows keep their ids 1..3000)."""

    ALL_NULL = 900001  # NULL in every nullable column, embedding included
    HTML = 900004
    EMOJI = 900005
    RUSSIAN = 900006
    CONTROL = 900007  # BEL and RTL override in the title
    # City "Валютне": one price per scraper spelling of a currency (item 4).
    USD_LOWER = 900010  # 45000 usd
    GRN = 900011  # 1 500 000 грн
    HRYVNIA_SIGN = 900012  # 1 200 000 ₴
    DOLLAR_SIGN = 900013  # 30000 $
    EURO_SIGN = 900014  # 40000 €
    UO = 900015  # 42000 у.о. (conventional units = USD)
    UAH_LOWER = 900016  # 44000 uah
    NULL_CURRENCY = 900017  # 35000, currency NULL
    USD_DEAR = 900018  # 90000 USD: above the bound
    # City "Словникове": values outside the documented enums (item 5, 6).
    EURO_REPAIR = 900020
    EVROREMONT = 900021
    BLOCK = 900022
    DAILY = 900023
    WALKING = 900024
    COURTYARD = 900025
    STANDARD = 900026
    INACTIVE = 900027
    ACTIVE_UPPER = 900028
    EURO = 900029
    NULL_STATUS = 900030
    # City "Нульове": zero vectors and their normal neighbours (item 7).
    ZERO_VECTORS = (900040, 900041, 900042)
    ZERO_NEIGHBOURS = (900043, 900044, 900045, 900046, 900047)
    # City "Гігантськ": 60 rows with huge texts (item 8).
    HUGE = tuple(range(900100, 900160))


MONEY_CITY = "Валютне"
VOCAB_CITY = "Словникове"
ZERO_CITY = "Нульове"
HUGE_CITY = "Гігантськ"
CONTROL_CITY = "Керівне"
CONTROL_TITLE = "Квартира\x07 з дзвоником \u202eмоклаб з"
HTML_DESCRIPTION = '<p onclick="alert(1)">Опис</p><table><tr><td>кухня</td></tr></table>'
HTML_TITLE = "<script>alert('x')</script><b>Квартира</b> &amp; <i>балкон</i>"

TYPES_DDL = """
CREATE TABLE property_types (
    id integer PRIMARY KEY,
    name varchar(128) NOT NULL,
    slug varchar(64) NOT NULL UNIQUE,
    sort_order integer DEFAULT 0,
    description text
)
"""

# Other column order, extra columns, other types; no generated column, no vmk_meta.
LISTINGS_DDL = """
CREATE TABLE property_listings (
    id integer PRIMARY KEY,
    source_site varchar(64),
    title text,
    price double precision,
    currency varchar(16),
    city text,
    district text,
    deal_type text,
    listing_status text,
    raw_json jsonb,
    is_duplicate boolean NOT NULL DEFAULT false,
    url_source text,
    publish_date timestamp without time zone,
    archived_at date,
    total_area real,
    living_area double precision,
    kitchen_area numeric,
    rooms_count integer,
    floor integer,
    floors_count integer,
    description text,
    search_vector tsvector,
    embedding vector(768),
    generated_description text,
    address_raw text,
    metro_station text,
    metro_distance_type text,
    metro_distance_meters integer,
    building_type text,
    building_year integer,
    renovation_status text,
    balcony_count integer,
    bathroom_type text,
    parking_type text,
    heating_type text,
    layout_type text,
    window_view text,
    images_count integer,
    contact_phone text,
    contact_name text,
    property_type_id integer REFERENCES property_types (id),
    raw_data_id bigint,
    scraped_at timestamptz,
    created_at timestamp without time zone NOT NULL DEFAULT now(),
    updated_at timestamp without time zone NOT NULL DEFAULT now()
)
"""

# data_collector keeps search_vector with a trigger, weighted its own way.
TRIGGER_DDL = """
CREATE FUNCTION property_listings_search_vector() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.search_vector :=
        setweight(to_tsvector('{cfg}', coalesce(NEW.title, '')), 'A')
        || setweight(to_tsvector('{cfg}', coalesce(NEW.description, '')), 'B')
        || setweight(to_tsvector('{cfg}', coalesce(NEW.city, '') || ' '
               || coalesce(NEW.district, '') || ' ' || coalesce(NEW.address_raw, '')), 'C');
    RETURN NEW;
END
$$;
CREATE TRIGGER property_listings_search_vector_trg
    BEFORE INSERT OR UPDATE ON property_listings
    FOR EACH ROW EXECUTE FUNCTION property_listings_search_vector();
"""

# The copied rows, re-spelled the way scrapers write values (deterministic by id).
COPY_COLUMNS = [
    "id", "source_site", "title", "price", "currency", "city", "district", "deal_type",
    "listing_status", "raw_json", "is_duplicate", "url_source", "publish_date", "archived_at",
    "total_area", "living_area", "kitchen_area", "rooms_count", "floor", "floors_count",
    "description", "embedding", "generated_description", "address_raw", "metro_station",
    "metro_distance_type", "metro_distance_meters", "building_type", "building_year",
    "renovation_status", "balcony_count", "bathroom_type", "parking_type", "heating_type",
    "layout_type", "window_view", "images_count", "contact_phone", "contact_name",
    "property_type_id", "raw_data_id",
]  # fmt: skip
SOURCE_SELECT = """
SELECT id::integer,
       CASE WHEN id % 2 = 0 THEN 'olx.ua' ELSE 'dom.ria.com' END,
       title,
       price::double precision,
       CASE
           WHEN currency IS NULL THEN NULL
           WHEN id % 25 = 1 THEN lower(currency)
           WHEN id % 25 = 2 THEN CASE currency WHEN 'USD' THEN '$' WHEN 'EUR' THEN '€' ELSE '₴' END
           WHEN id % 25 = 3 THEN CASE currency WHEN 'UAH' THEN 'грн' WHEN 'USD' THEN 'у.о.'
                                 ELSE 'eur' END
           WHEN id % 25 = 4 THEN NULL
           ELSE currency END,
       city, district,
       CASE WHEN id % 43 = 6 AND deal_type = 'rent_short' THEN 'daily' ELSE deal_type END,
       CASE WHEN id % 17 = 0 THEN NULL
            WHEN id % 53 = 1 THEN 'inactive'
            WHEN id % 59 = 2 AND listing_status = 'active' THEN 'ACTIVE'
            ELSE listing_status END,
       jsonb_build_object('source_id', id, 'raw', left(title, 40)),
       id % 97 = 0,
       url_source,
       (publish_date AT TIME ZONE 'Europe/Kyiv'),
       (archived_at AT TIME ZONE 'Europe/Kyiv')::date,
       total_area::real, living_area::double precision, kitchen_area,
       rooms_count, floor, floors_count, description, embedding, generated_description,
       address_raw, metro_station,
       CASE WHEN id % 23 = 8 AND metro_distance_type = 'walk' THEN 'walking'
            ELSE metro_distance_type END,
       metro_distance_meters,
       CASE WHEN id % 29 = 7 THEN 'block' ELSE building_type END,
       building_year,
       CASE WHEN id % 31 = 3 AND renovation_status = 'euro' THEN 'euro_repair'
            WHEN id % 37 = 4 AND renovation_status = 'euro' THEN 'Євроремонт'
            WHEN id % 41 = 5 THEN 'standard'
            ELSE renovation_status END,
       balcony_count, bathroom_type, parking_type, heating_type, layout_type,
       CASE WHEN id % 19 = 9 AND window_view = 'yard' THEN 'courtyard' ELSE window_view END,
       images_count, contact_phone, contact_name, property_type_id, raw_data_id
FROM property_listings ORDER BY id
"""


def url(
    server: embedded_db.EmbeddedServer, dbname: str, user: str = READER, query: str = ""
) -> str:
    """A database URL over the embedded server's Unix socket (percent-encoded directory)."""
    return f"postgres://{user}@{quote(server.socket_dir, safe='')}/{dbname}{query}"


def checksum(server: embedded_db.EmbeddedServer, dbname: str) -> str:
    with server.connect(dbname) as conn:
        row = conn.execute(CHECKSUM_SQL).fetchone()
    assert row is not None
    return str(row[0])


def drop(server: embedded_db.EmbeddedServer, variant: Variant) -> None:
    with server.connect("postgres") as admin:
        admin.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                sql.Identifier(variant.dbname)
            )
        )


def drop_reader(server: embedded_db.EmbeddedServer) -> None:
    with server.connect("postgres") as admin:
        admin.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(READER)))


def _vector_text(vector: list[float]) -> str:
    return "[" + ",".join(f"{x:.6f}" for x in vector) + "]"


def _fts_config(conn: psycopg.Connection) -> str:
    """A working hunspell `ukrainian` built another way than ours: dictionary `ukrainian_huns`."""
    if not schema.install_dictionary_files(embedded_db.tsearch_dir()):
        raise RuntimeError("the hunspell-uk dictionary is not installed (Debian hunspell-uk)")
    conn.execute("CREATE TEXT SEARCH CONFIGURATION ukrainian (COPY = simple)")
    conn.execute(
        "CREATE TEXT SEARCH DICTIONARY ukrainian_huns "
        "(TEMPLATE = ispell, DictFile = uk_ua, AffFile = uk_ua, StopWords = ukrainian)"
    )
    conn.execute(
        "ALTER TEXT SEARCH CONFIGURATION ukrainian "
        "ALTER MAPPING FOR word, hword, hword_part WITH ukrainian_huns, simple"
    )
    return "ukrainian"


def _reader_role(conn: psycopg.Connection, dbname: str) -> None:
    role = sql.Identifier(READER)
    if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [READER]).fetchone():
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(role))
    conn.execute(sql.SQL("ALTER ROLE {} SET default_transaction_read_only = on").format(role))
    conn.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(dbname), role))
    conn.execute(sql.SQL("GRANT USAGE ON SCHEMA public, staging TO {}").format(role))
    conn.execute(sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA public, staging TO {}").format(role))


def _row(id_: int, **values: object) -> dict[str, object]:
    return {"id": id_, **values}


def hostile_rows(vectors: list[str]) -> list[dict[str, object]]:
    """The hand-made rows; `vectors` are real embeddings (text form) to give them."""
    base = {
        "deal_type": "sale",
        "listing_status": "active",
        "price": 50000.0,
        "currency": "USD",
        "rooms_count": 2,
        "total_area": 55.5,
        "property_type_id": 1,
        "publish_date": "2025-03-01 10:00:00",
        "description": "Простора квартира з балконом біля метро.",
    }
    rows: list[dict[str, object]] = [
        _row(Hostile.ALL_NULL),
        _row(Hostile.HTML, **base | {"description": HTML_DESCRIPTION}, city="Київ",
             title=HTML_TITLE, embedding=vectors[0]),
        _row(Hostile.EMOJI, **base, city="Київ", embedding=vectors[1],
             title="🏠🔥 Квартира з балконом 😍 👨‍👩‍👧 ✨"),
        _row(Hostile.RUSSIAN, **base | {"description": "Продается в центре, рядом метро."},
             city="Киев", title="Продается двухкомнатная квартира", embedding=vectors[2]),
        _row(Hostile.CONTROL, **base, city=CONTROL_CITY, title=CONTROL_TITLE, embedding=vectors[3]),
    ]  # fmt: skip
    money = [
        (Hostile.USD_LOWER, 45000.0, "usd"),
        (Hostile.GRN, 1500000.0, "грн"),
        (Hostile.HRYVNIA_SIGN, 1200000.0, "₴"),
        (Hostile.DOLLAR_SIGN, 30000.0, "$"),
        (Hostile.EURO_SIGN, 40000.0, "€"),
        (Hostile.UO, 42000.0, "у.о."),
        (Hostile.UAH_LOWER, 44000.0, "uah"),
        (Hostile.NULL_CURRENCY, 35000.0, None),
        (Hostile.USD_DEAR, 90000.0, "USD"),
    ]
    for index, (id_, price, currency) in enumerate(money):
        rows.append(
            _row(id_, **base | {"price": price, "currency": currency}, city=MONEY_CITY,
                 title=f"Квартира за {price:.0f} {currency}", embedding=vectors[4 + index])
        )  # fmt: skip
    vocab: list[tuple[int, dict[str, object]]] = [
        (Hostile.EURO_REPAIR, {"renovation_status": "euro_repair"}),
        (Hostile.EVROREMONT, {"renovation_status": "Євроремонт"}),
        (Hostile.BLOCK, {"building_type": "block"}),
        (Hostile.DAILY, {"deal_type": "daily"}),
        (Hostile.WALKING, {"metro_distance_type": "walking", "metro_station": "Хрещатик"}),
        (Hostile.COURTYARD, {"window_view": "courtyard"}),
        (Hostile.STANDARD, {"renovation_status": "standard"}),
        (Hostile.INACTIVE, {"listing_status": "inactive"}),
        (Hostile.ACTIVE_UPPER, {"listing_status": "ACTIVE"}),
        (Hostile.EURO, {"renovation_status": "euro"}),
        (Hostile.NULL_STATUS, {"listing_status": None}),
    ]
    for index, (id_, values) in enumerate(vocab):
        rows.append(
            _row(id_, **base | values, city=VOCAB_CITY, title=f"Квартира {next(iter(values.values()))}",
                 embedding=vectors[20 + index])
        )  # fmt: skip
    zero = _vector_text([0.0] * DIM)
    for id_ in Hostile.ZERO_VECTORS:
        rows.append(_row(id_, **base, city=ZERO_CITY, title="Квартира без вектора", embedding=zero))
    for index, id_ in enumerate(Hostile.ZERO_NEIGHBOURS):
        rows.append(
            _row(id_, **base, city=ZERO_CITY, title="Квартира з вектором",
                 embedding=vectors[40 + index])
        )  # fmt: skip
    paragraph = "Велика світла квартира з ремонтом, балконом і видом на парк. " * 2
    for index, id_ in enumerate(Hostile.HUGE):
        rows.append(
            _row(
                id_,
                **base | {"description": (paragraph * 900)[:100_000]},
                city=HUGE_CITY,
                title=("Величезний заголовок квартири " * 200)[:5000],
                url_source="https://example.com/" + "a" * 3000,
                district=("Дуже довгий район " * 60)[:1000],
                metro_station=("Довга станція метро " * 60)[:1000],
                address_raw="вул. " + "Довга " * 300,
                embedding=vectors[60 + index],
            )
        )
    return rows


def _insert(conn: psycopg.Connection, rows: list[dict[str, object]]) -> None:
    for row in rows:
        columns = list(row)
        conn.execute(
            sql.SQL("INSERT INTO property_listings ({}) VALUES ({})").format(
                sql.SQL(", ").join(map(sql.Identifier, columns)),
                sql.SQL(", ").join(sql.Placeholder() * len(columns)),
            ),
            list(row.values()),
        )


def build(server: embedded_db.EmbeddedServer, variant: Variant) -> None:
    """Create the variant's database from the test listings; replaces one left by a crash."""
    drop(server, variant)
    with server.connect("postgres") as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(variant.dbname)))
    with server.connect(SOURCE_DB) as source, server.connect(variant.dbname) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        config = _fts_config(conn) if variant.ukrainian else "simple"
        conn.execute(TYPES_DDL)
        conn.execute(LISTINGS_DDL)
        conn.execute(TRIGGER_DDL.replace("{cfg}", config))
        with source.cursor() as cur:
            types = cur.execute(
                "SELECT id, name, slug, description FROM property_types ORDER BY id"
            ).fetchall()
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO property_types (id, name, slug, description) VALUES (%s, %s, %s, %s)",
                types,
            )
        columns = sql.SQL(", ").join(map(sql.Identifier, COPY_COLUMNS))
        with (
            source.cursor().copy(sql.SQL("COPY ({}) TO STDOUT").format(sql.SQL(SOURCE_SELECT))) as out,
            conn.cursor().copy(sql.SQL("COPY property_listings ({}) FROM STDIN").format(columns)) as into,
        ):  # fmt: skip
            for block in out:
                into.write(block)
        vectors = [
            row[0]
            for row in source.execute(
                "SELECT embedding::text FROM property_listings WHERE embedding IS NOT NULL "
                "ORDER BY id LIMIT 200"
            )
        ]
        _insert(conn, hostile_rows(vectors))
        conn.execute(
            "UPDATE property_listings SET raw_json = NULL WHERE id = %s", [Hostile.ALL_NULL]
        )
        conn.execute("SET maintenance_work_mem = '256MB'")
        if variant.hnsw:
            conn.execute(
                f"CREATE INDEX {HNSW_INDEX} ON property_listings "
                "USING hnsw (embedding vector_cosine_ops) WITH (m = 8, ef_construction = 32)"
            )
        conn.execute(f"CREATE INDEX {GIN_INDEX} ON property_listings USING gin (search_vector)")
        conn.execute("CREATE INDEX listings_city_idx ON property_listings (city)")
        conn.execute("CREATE INDEX listings_price_idx ON property_listings (price)")
        # An empty copy in another schema: only `options=-c search_path=staging` reaches it.
        conn.execute("CREATE SCHEMA staging")
        conn.execute("CREATE TABLE staging.property_types (LIKE public.property_types)")
        conn.execute(
            "CREATE TABLE staging.property_listings (LIKE public.property_listings INCLUDING ALL)"
        )
        conn.execute("ANALYZE")
        _reader_role(conn, variant.dbname)


def facts(server: embedded_db.EmbeddedServer, variant: Variant) -> dict[str, object]:
    """Counts the asserts compare with, read as the superuser."""
    with server.connect(variant.dbname) as conn:
        total, null_status = conn.execute(
            "SELECT count(*), count(*) FILTER (WHERE listing_status IS NULL) FROM property_listings"
        ).fetchone() or (0, 0)
        normal_id = conn.execute(
            "SELECT id FROM property_listings WHERE embedding IS NOT NULL AND id < 900000 "
            "AND listing_status = 'active' AND city = 'Київ' ORDER BY id LIMIT 1"
        ).fetchone()
    return {"total": total, "null_status": null_status, "normal_id": normal_id and normal_id[0]}


def dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)
