-- A DCU's link and its meters' links told at once (a DCU and its meters coming back together) ran this
-- trigger in two transactions, each reading the other's row before it committed: a meter online behind
-- a DCU online stayed offline. A change now waits for any other change under the same DCU, and reads
-- the other's committed rows once it holds the lock (each statement here takes a new snapshot).
CREATE OR REPLACE FUNCTION "device_online_link_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.device_kind = 'meter' THEN
    PERFORM pg_advisory_xact_lock(hashtext('device link under ' || m.dcu_id))
    FROM meter m WHERE lower(m.dev_addr) = lower(NEW.device_key) AND m.dcu_id IS NOT NULL;
    UPDATE device_online o SET link_online = NEW.online, link_changed_at = NEW.changed_at,
      online = NEW.online AND (o.dcu_id IS NULL
        OR coalesce((SELECT d.link_online FROM device_online d WHERE d.device_id = o.dcu_id), false))
    FROM meter m WHERE lower(m.dev_addr) = lower(NEW.device_key) AND o.device_id = m.id;
  ELSE
    PERFORM pg_advisory_xact_lock(hashtext('device link under ' || d.id))
    FROM dcu d WHERE lower(d.dcu_no) = lower(NEW.device_key);
    UPDATE device_online o SET link_online = NEW.online, link_changed_at = NEW.changed_at, online = NEW.online
    FROM dcu d WHERE lower(d.dcu_no) = lower(NEW.device_key) AND o.device_id = d.id;
    UPDATE device_online m SET online = m.link_online AND NEW.online
    FROM dcu d WHERE lower(d.dcu_no) = lower(NEW.device_key) AND m.dcu_id = d.id
      AND m.online IS DISTINCT FROM (m.link_online AND NEW.online);
  END IF;
  RETURN NULL;
END $$;
