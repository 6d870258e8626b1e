#!/bin/sh
# TEST-ONLY certificates for test/data/postgresTls.test.ts, made into the folder given
# (`sh tlsCertificates.sh DIR`) each time the test runs, so no private key is ever committed:
# a CA (ca.crt), a server certificate for DNS:localhost only signed by it (server.crt/.key;
# 127.0.0.1 is then a host name it does not cover), a client certificate CN=analyst_reader
# signed by it (client.crt/.key), and an unrelated CA (other-ca.crt). EC P-256 keys, valid
# 2020-2120 (backdated: a machine whose clock lags still accepts them). The CA keys are thrown
# away. openssl comes with Debian's postgresql (postgresql-common -> ssl-cert -> openssl).
set -eu
here=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cat > ca.cnf <<'EOF'
[ca]
default_ca = test_ca
[test_ca]
dir = .
database = index.txt
new_certs_dir = .
serial = serial
default_md = sha256
policy = any
copy_extensions = none
unique_subject = no
[any]
commonName = supplied
[ca_ext]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[server_ext]
basicConstraints = CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost
authorityKeyIdentifier = keyid
[client_ext]
basicConstraints = CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = clientAuth
authorityKeyIdentifier = keyid
EOF
touch index.txt
echo 1000 > serial
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1"; }
sign() { openssl ca -batch -config ca.cnf -notext -startdate 20200101000000Z -enddate 21200101000000Z "$@" 2>/dev/null; }
request() { key "$1.key" && openssl req -new -key "$1.key" -subj "/CN=$2" -out "$1.csr"; }

request ca 'analyst-agent test CA'
sign -selfsign -keyfile ca.key -in ca.csr -extensions ca_ext -out ca.crt
request other-ca 'analyst-agent unrelated test CA'
sign -selfsign -keyfile other-ca.key -in other-ca.csr -extensions ca_ext -out other-ca.crt
request server localhost
sign -cert ca.crt -keyfile ca.key -in server.csr -extensions server_ext -out server.crt
request client analyst_reader
sign -cert ca.crt -keyfile ca.key -in client.csr -extensions client_ext -out client.crt

cp ca.crt other-ca.crt server.crt server.key client.crt client.key "$here/"
openssl verify -CAfile "$here/ca.crt" "$here/server.crt" "$here/client.crt" >/dev/null
