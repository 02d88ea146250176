-- Market insight (listings.market): comparables, duplicates and a city's trend read only
-- this index (index-only scans) instead of every wide row of a city.
CREATE INDEX IF NOT EXISTS ix_property_listings_market
    ON property_listings (city, deal_type, property_type_id, rooms_count, total_area)
    INCLUDE (price, currency, listing_status, district, floor, floors_count, publish_date);
