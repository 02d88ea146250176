-- Built after a bulk load: building them on a full table is several times faster.
CREATE INDEX IF NOT EXISTS ix_property_listings_embedding_hnsw
    ON property_listings USING hnsw (embedding vector_cosine_ops);
CREATE INDEX IF NOT EXISTS ix_property_listings_search_vector_gin
    ON property_listings USING gin (search_vector);
CREATE INDEX IF NOT EXISTS ix_property_listings_city ON property_listings (city);
CREATE INDEX IF NOT EXISTS ix_property_listings_price ON property_listings (price);
ANALYZE property_types;
