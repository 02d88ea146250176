-- Market insight and statistics (listings.market, listings.search.stats): comparables,
-- duplicates, trends and listing_stats read only this index (index-only scans) instead of
-- every wide row. The demo builds it; check_listings_db --advise proposes it to the owners.
CREATE INDEX IF NOT EXISTS ix_property_listings_market
    ON property_listings (city, deal_type, property_type_id, rooms_count, total_area)
    INCLUDE (price, currency, listing_status, district, floor, floors_count, publish_date);
