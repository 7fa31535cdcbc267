SELECT TOP 10 *
FROM OPENROWSET(
        BULK 'spotifyStreamData',
        DATA_SOURCE = 'https://adlsacc1sd.blob.core.windows.net/adlsfs1sd/delta/',
        FORMAT = 'delta'
    ) as rows;