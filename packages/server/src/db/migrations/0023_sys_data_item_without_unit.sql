-- A data item shows the OBIS catalogue's unit for its code (Wh and W, as readings are stored); this
-- second copy said kWh and kW for the same values.
ALTER TABLE "sys_data_item" DROP COLUMN "unit";
