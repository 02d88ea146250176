-- Built after a bulk load: building them on a full table is several times faster.
CREATE INDEX IF NOT EXISTS ix_property_listings_embedding_hnsw
    ON property_listings USING hnsw (embedding vector_cosine_ops);
CREATE INDEX IF NOT EXISTS ix_property_listings_search_vector_gin
    ON property_listings USING gin (search_vector);
CREATE INDEX IF NOT EXISTS ix_property_listings_city ON property_listings (city);
CREATE INDEX IF NOT EXISTS ix_property_listings_price ON property_listings (price);
-- Market insight (listings.market): comparables, duplicates and a city's trend read only
-- this index (index-only scans) instead of every wide row of a city.
CREATE INDEX IF NOT EXISTS ix_property_listings_market
    ON property_listings (city, deal_type, property_type_id, rooms_count, total_area)
    INCLUDE (price, currency, listing_status, district, floor, floors_count, publish_date);
ANALYZE property_types;
ANALYZE property_listings;
