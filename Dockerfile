# Tributary broker image. Build:  docker build -t tributary .
# Run one broker:                 docker run -p 8081:8081 -v tributary-data:/var/lib/tributary tributary
# Extra Spring properties go after the image name, e.g. `tributary --tributary.broker-id=2`.
# JVM flags: -e JAVA_TOOL_OPTIONS="-Xmx2g ..." (the default below sizes the heap from the container limit).

# ---- build stage: the Maven wrapper on a JDK 17 ----
FROM eclipse-temurin:17-jdk AS build
WORKDIR /src
# Dependencies first, in their own layer: it is rebuilt only when pom.xml or the wrapper changes.
COPY mvnw pom.xml ./
COPY .mvn .mvn
RUN ./mvnw -B -q dependency:go-offline
COPY src src
RUN ./mvnw -B -DskipTests package && cp target/tributary.jar /tributary.jar

# ---- run stage: JRE only, non-root ----
FROM eclipse-temurin:17-jre
RUN groupadd --system tributary \
 && useradd --system --gid tributary --uid 10001 --home-dir /var/lib/tributary --no-create-home tributary \
 && mkdir -p /app /var/lib/tributary \
 && chown tributary:tributary /var/lib/tributary
COPY --from=build /tributary.jar /app/tributary.jar
USER tributary
VOLUME /var/lib/tributary
EXPOSE 8081
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75 -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError" \
    SERVER_PORT=8081
# curl ships in the eclipse-temurin Ubuntu images. Ready means log recovery has finished.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD curl -fsS "http://127.0.0.1:${SERVER_PORT}/actuator/health/readiness" || exit 1
# The port comes from SERVER_PORT so that a compose file can give each broker its own.
ENTRYPOINT ["java", "-jar", "/app/tributary.jar", "--tributary.data-dir=/var/lib/tributary", \
            "--server.address=0.0.0.0"]
