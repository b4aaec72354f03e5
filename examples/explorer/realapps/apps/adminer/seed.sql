-- The shop database every Adminer instance starts with.
CREATE TABLE customers (
  id serial PRIMARY KEY,
  name text NOT NULL,
  email text NOT NULL UNIQUE,
  city text,
  note text
);
CREATE TABLE products (
  id serial PRIMARY KEY,
  title text NOT NULL,
  price numeric(10,2) NOT NULL CHECK (price >= 0),
  stock integer NOT NULL DEFAULT 0
);
CREATE TABLE orders (
  id serial PRIMARY KEY,
  customer_id integer NOT NULL REFERENCES customers(id),
  product_id integer NOT NULL REFERENCES products(id),
  quantity integer NOT NULL DEFAULT 1,
  ordered_at date NOT NULL DEFAULT CURRENT_DATE
);
INSERT INTO customers (name, email, city, note) VALUES
  ('Ana Lima', 'ana@example.test', 'Lisbon', 'prefers email'),
  ('Bo Jensen', 'bo@example.test', 'Aarhus', NULL),
  ('Chris O''Neil', 'chris@example.test', 'Cork', 'VIP'),
  ('Zoë Müller', 'zoe@example.test', 'Zürich', NULL);
INSERT INTO products (title, price, stock) VALUES
  ('Espresso cups (set of 4)', 24.00, 12),
  ('Pour-over kettle', 39.50, 5),
  ('Coffee beans 1 kg', 18.90, 40);
INSERT INTO orders (customer_id, product_id, quantity, ordered_at) VALUES
  (1, 2, 1, '2026-11-02'), (2, 3, 2, '2026-11-05'), (3, 1, 1, '2026-11-20'), (4, 3, 3, '2026-12-01');
